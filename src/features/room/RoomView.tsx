import { lazy, Suspense } from 'react';
import { inspector } from '../../app/inspect.ts';
import { liveInvitesLogic, liveMachineListLogic, liveRoomLogic } from '../../app/live.ts';
import type { InvitesLogic, RoomLogic } from '../../app/room.ts';
import { MachineListContext } from '../machines/machine-list-context.ts';
import { MachinesPanel } from '../machines/MachinesPanel.tsx';
import { useCurrentUser } from '../session/session-context.ts';
import { InvitesPanel } from './InvitesPanel.tsx';
import { MembersList } from './MembersList.tsx';
import { RoomHeader } from './RoomHeader.tsx';
import { RoomContext, useIsOwner, useProjectId, useRemovedReason, useRoomError, useRoomSend, useRoomStatus } from './room-context.ts';
import './room.css';

/**
 * The project room at /p/:projectId, and with a machine open at /p/:projectId/m/:machineId.
 * One room actor per project and user: a new key when either changes, so the old room's
 * channel closes with its actor. The room stays while machines open and close in it.
 */
export function RoomView({ projectId, machineId, logic, invites }: { projectId: string; machineId?: string; logic?: RoomLogic; invites?: InvitesLogic }) {
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
      <MachineListContext.Provider logic={liveMachineListLogic()} options={{ input: { projectId }, inspect: inspector() }}>
        <Room invites={invites} machineId={machineId} />
      </MachineListContext.Provider>
    </RoomContext.Provider>
  );
}

// The canvas (diagram, layout worker, code editor) loads when a machine is first opened.
const MachineView = lazy(() => import('../canvas/MachineView.tsx').then((m) => ({ default: m.MachineView })));

function Room({ invites, machineId }: { invites: InvitesLogic | undefined; machineId: string | undefined }) {
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
  if (machineId) {
    return (
      <main className="room room-wide" aria-labelledby="room-title">
        <RoomHeader />
        <Suspense
          fallback={
            <p className="center" role="status">
              <span className="spinner" aria-hidden="true" /> Opening the machine…
            </p>
          }
        >
          <MachineView key={machineId} machineId={machineId} />
        </Suspense>
      </main>
    );
  }
  return (
    <main className="room" aria-labelledby="room-title">
      <RoomHeader />
      <div className="room-body">
        <MachinesPanel />
        <MembersList />
        {isOwner && <InvitesPanel projectId={projectId} logic={invites ?? liveInvitesLogic()} />}
      </div>
    </main>
  );
}
