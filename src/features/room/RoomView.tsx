import { inspector } from '../../app/inspect.ts';
import { liveInvitesLogic, liveRoomLogic } from '../../app/live.ts';
import type { InvitesLogic, RoomLogic } from '../../app/room.ts';
import { useCurrentUser } from '../session/session-context.ts';
import { InvitesPanel } from './InvitesPanel.tsx';
import { MembersList } from './MembersList.tsx';
import { RoomHeader } from './RoomHeader.tsx';
import { RoomContext, useIsOwner, useProjectId, useRemovedReason, useRoomError, useRoomSend, useRoomStatus } from './room-context.ts';
import './room.css';

/**
 * The project room at /p/:projectId. One room actor per project and user: a new key
 * when either changes, so the old room's channel closes with its actor.
 */
export function RoomView({ projectId, logic, invites }: { projectId: string; logic?: RoomLogic; invites?: InvitesLogic }) {
  const user = useCurrentUser();
  if (!user) {
    return (
      <main className="center" role="status">
        Sign in to open this project.
      </main>
    );
  }
  return (
    <RoomContext.Provider key={`${projectId}:${user.id}`} logic={logic ?? liveRoomLogic()} options={{ input: { projectId, userId: user.id }, inspect: inspector() }}>
      <Room invites={invites} />
    </RoomContext.Provider>
  );
}

function Room({ invites }: { invites: InvitesLogic | undefined }) {
  const status = useRoomStatus();
  const error = useRoomError();
  const removedReason = useRemovedReason();
  const isOwner = useIsOwner();
  const projectId = useProjectId();
  const send = useRoomSend();

  if (status === 'joining') {
    return (
      <main className="center" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" /> Opening the project…
      </main>
    );
  }
  if (status === 'failed') {
    return (
      <main className="center">
        <section className="card" aria-labelledby="room-failed-title">
          <h1 id="room-failed-title">Couldn't open this project</h1>
          <p className="message error" role="alert">
            {error}
          </p>
          <button type="button" className="primary" onClick={() => send({ type: 'room.retry' })}>
            Try again
          </button>
        </section>
      </main>
    );
  }
  if (status === 'removed') {
    return (
      <main className="center">
        <section className="card" aria-labelledby="room-removed-title">
          <h1 id="room-removed-title">You're no longer in this project</h1>
          <p className="message notice" role="alert">
            {removedReason}
          </p>
          <a href="/">Back to your projects</a>
        </section>
      </main>
    );
  }
  return (
    <main className="room" aria-labelledby="room-title">
      <RoomHeader />
      <div className="room-body">
        <MembersList />
        {isOwner && <InvitesPanel projectId={projectId} logic={invites ?? liveInvitesLogic()} />}
      </div>
    </main>
  );
}
