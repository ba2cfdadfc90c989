import { useEffect } from 'react';
import { ConnectionBanner, ConnectionContext, RoomContext, RoomView } from '../features/room/index.ts';
import { JoinContext } from '../features/invite/join-context.ts';
import { JoinStatusView } from '../features/invite/JoinFlow.tsx';
import { InvitePage } from '../features/invite/InvitePage.tsx';
import { ProfileContext } from '../features/profile/profile-context.ts';
import { ProfilePage } from '../features/profile/ProfilePage.tsx';
import { ProjectsContext } from '../features/projects/projects-context.ts';
import { ProjectsPage } from '../features/projects/ProjectsPage.tsx';
import { SessionBar } from '../features/session/SessionBar.tsx';
import { SignInCard } from '../features/session/SignInCard.tsx';
import { SharePage } from '../features/share/SharePage.tsx';
import { useCurrentUser, useSessionStatus } from '../features/session/session-context.ts';
import type { Route } from '../lib/route.ts';
import { Brand } from './Brand.tsx';
import { InspectionSlot } from './InspectionSlot.tsx';
import { inspector } from './inspect.ts';
import { liveJoinLogic, liveProfileLogic, liveProjectsLogic } from './live-data.ts';
import { documentSettings, liveConnectionLogic, liveRoomLogic } from './live.ts';
import { followLinks, useRoute } from '../features/navigation/router.ts';

/** The shell: the route picks the page, the session decides whether it can be shown. */
export function App() {
  const status = useSessionStatus();
  const route = useRoute();
  useEffect(() => followLinks(), []);
  const authenticated = status === 'signedIn' || status === 'guest' || status === 'signingOut';

  return (
    <div className="shell">
      {/* The machine and inspection pages have one slim bar of their own (home, account and all): no top bar above it. */}
      {!(authenticated && (route.name === 'machine' || route.name === 'inspect')) && (
        <header className="topbar">
          <Brand />
          {authenticated && <TopNav route={route} />}
          {authenticated && <SessionBar />}
        </header>
      )}
      {authenticated && (
        <ConnectionContext.Provider logic={liveConnectionLogic()} options={{ inspect: inspector() }}>
          <ConnectionBanner />
        </ConnectionContext.Provider>
      )}
      {status === 'restoring' ? (
        <main className="center" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" /> Restoring your session…
        </main>
      ) : (
        <Page route={route} authenticated={authenticated} />
      )}
    </div>
  );
}

function TopNav({ route }: { route: Route }) {
  return (
    <nav className="topnav" aria-label="Main">
      <a href="/" aria-current={route.name === 'home' ? 'page' : undefined}>
        Projects
      </a>
      <a href="/profile" aria-current={route.name === 'profile' ? 'page' : undefined}>
        Profile
      </a>
    </nav>
  );
}

function Page({ route, authenticated }: { route: Route; authenticated: boolean }) {
  const user = useCurrentUser();
  // Links that sign people in on the way stay on their own page.
  if (route.name === 'invite' || route.name === 'share') {
    const kind = route.name;
    const join = user && (
      <JoinContext.Provider
        key={`${route.token}:${user.id}`}
        logic={liveJoinLogic()}
        options={{ input: { kind, token: route.token }, inspect: inspector() }}
      >
        <JoinStatusView kind={kind} />
      </JoinContext.Provider>
    );
    return kind === 'invite' ? <InvitePage join={join} /> : <SharePage join={join} />;
  }
  if (!authenticated || !user) return <SignInCard />;
  switch (route.name) {
    case 'home':
      return (
        <ProjectsContext.Provider
          key={user.id}
          logic={liveProjectsLogic()}
          options={{ input: { userId: user.id }, inspect: inspector() }}
        >
          <ProjectsPage canCreate={!user.isAnonymous} />
        </ProjectsContext.Provider>
      );
    case 'project':
    case 'machine':
    case 'inspect':
      // One room actor per project and person: a new key when either changes closes the old room's channel.
      return (
        <RoomContext.Provider
          key={`${route.projectId}:${user.id}`}
          logic={liveRoomLogic()}
          options={{
            input: { projectId: route.projectId, userId: user.id, document: documentSettings, guest: user.isAnonymous },
            inspect: inspector(),
          }}
        >
          <RoomView
            machineId={route.name === 'machine' ? route.machineId : undefined}
            inspect={route.name === 'inspect' ? <InspectionSlot projectId={route.projectId} /> : undefined}
          />
        </RoomContext.Provider>
      );
    case 'profile':
      return (
        <ProfileContext.Provider
          key={user.id}
          logic={liveProfileLogic()}
          options={{ input: { userId: user.id }, inspect: inspector() }}
        >
          <ProfilePage />
        </ProfileContext.Provider>
      );
    case 'notFound':
      return (
        <main className="center">
          <section className="card" aria-labelledby="not-found-title">
            <h1 id="not-found-title">Nothing here</h1>
            <p className="lede">There is no page at {route.path}.</p>
            <a href="/">Go to your projects</a>
          </section>
        </main>
      );
  }
}
