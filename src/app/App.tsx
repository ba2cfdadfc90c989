import { SessionBar } from '../features/session/SessionBar.tsx';
import { SignInCard } from '../features/session/SignInCard.tsx';
import { useCurrentUser, useSessionStatus } from '../features/session/session-context.ts';
import { Brand } from './Brand.tsx';

/** Chooses the screen from the session's mode; everything below reads its own slice. */
export function App() {
  const status = useSessionStatus();
  return (
    <div className="shell">
      <header className="topbar">
        <Brand />
        {(status === 'signedIn' || status === 'guest' || status === 'signingOut') && <SessionBar />}
      </header>
      {status === 'restoring' && (
        <main className="center" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" /> Restoring your session…
        </main>
      )}
      {(status === 'signedOut' || status === 'pending') && <SignInCard />}
      {(status === 'signedIn' || status === 'guest' || status === 'signingOut') && <Home />}
    </div>
  );
}

function Home() {
  const user = useCurrentUser();
  return (
    <main className="home">
      <section className="card wide-card" aria-labelledby="home-title">
        <h1 id="home-title">{user?.isAnonymous ? 'Welcome, guest' : 'Welcome back'}</h1>
        <p className="lede">
          {user?.isAnonymous
            ? 'You are viewing as a guest. Open a share link to join a room, or sign out and create an account to start your own.'
            : 'No projects yet. Projects you create or are invited to will appear here.'}
        </p>
      </section>
    </main>
  );
}
