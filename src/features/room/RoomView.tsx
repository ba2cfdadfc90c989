import { lazy, Suspense, type ReactNode } from 'react';
import { MachinesPanel } from '../machines/MachinesPanel.tsx';
import { InvitesPanel } from './InvitesPanel.tsx';
import { MembersList } from './MembersList.tsx';
import { RoomHeader } from './RoomHeader.tsx';
import { routePath } from '../../lib/route.ts';
import {
  useIsOwner,
  useRemovedReason,
  useRoomError,
  useProjectId,
  useRoomSend,
  useRoomStatus,
} from './room-context.ts';
import './room.css';

// The canvas (diagram, code editor) loads when a machine is first opened.
const MachineView = lazy(() => import('../canvas/MachineView.tsx').then((m) => ({ default: m.MachineView })));

/**
 * The project room at /p/:projectId, and with a machine open at /p/:projectId/m/:machineId.
 * The composition root provides the room actor (one per project and user), and the room
 * stays while machines open and close in it.
 */
export function RoomView({ machineId, inspect }: { machineId?: string; inspect?: ReactNode }) {
  const status = useRoomStatus();
  const error = useRoomError();
  const removedReason = useRemovedReason();
  const isOwner = useIsOwner();
  const send = useRoomSend();
  const projectId = useProjectId();

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
  if (inspect) {
    return (
      // Like the machine page: the diagram under one slim bar (InspectionPage's own), no room header.
      <main className="room room-machine" aria-labelledby="inspect-title">
        {inspect}
      </main>
    );
  }
  if (machineId) {
    return (
      // The machine page is the canvas under one slim bar (MachineBar): no room header.
      <main className="room room-machine" aria-labelledby="machine-title">
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
        <aside className="room-side" aria-label="People and tools">
          <section className="card room-panel room-inspect-card" aria-labelledby="inspect-title">
            <h2 id="inspect-title">Your running app</h2>
            <p className="room-muted">See the machines of your own app live, as it runs.</p>
            <a className="button-link" href={routePath({ name: 'inspect', projectId })}>
              Watch your app
            </a>
          </section>
          <MembersList />
          {isOwner && <InvitesPanel />}
        </aside>
      </div>
    </main>
  );
}
