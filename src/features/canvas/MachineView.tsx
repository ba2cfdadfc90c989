import { useActorRef, useSelector } from '@xstate/react';
import { useCallback, useDeferredValue, useEffect, useMemo, useState, type FormEvent } from 'react';
import type { SnapshotFrom } from 'xstate';
import type { documentMachine } from '../../../machines/document.machine.ts';
import { inspector } from '../../app/inspect.ts';
import { liveCanvasPresenceLogic, liveDocumentLogic } from '../../app/live-canvas.ts';
import { chartroomModel } from '../../lib/collab/chartroom.ts';
import type { Op } from '../../lib/model/op-types.ts';
import type { Point, View } from '../../lib/ports/canvas-presence.ts';
import { MachineListContext, useMachineListStatus, useMachineName } from '../machines/machine-list-context.ts';
import { Avatar } from '../room/Avatar.tsx';
import { DiscardedEdit } from '../room/DiscardedEdit.tsx';
import { useCanEdit, useMembers, useProjectId, useRoomSend } from '../room/room-context.ts';
import { useCurrentUser } from '../session/session-context.ts';
import { CanvasPage } from './CanvasPage.tsx';
import type { PeerCursor } from './PeerCursors.tsx';

type DocSnapshot = SnapshotFrom<typeof documentMachine>;

type SyncStatus = 'loading' | 'failed' | 'offline' | 'saving' | 'synced';
const SYNC_TEXT: Record<SyncStatus, string> = { loading: 'Opening…', failed: "Couldn't open", offline: 'Offline', saving: 'Saving…', synced: 'Saved' };

function syncOf(s: DocSnapshot): SyncStatus {
  if (s.hasTag('failed')) return 'failed';
  if (s.hasTag('loading')) return 'loading';
  if (s.hasTag('offline')) return 'offline';
  if (s.hasTag('saving')) return 'saving';
  return 'synced';
}

const unsentOf = (s: DocSnapshot): number => (s.context.doc ? (s.context.doc.inflight?.ops.length ?? 0) + s.context.doc.pending.length : 0);

/**
 * One machine open in the room, at /p/:projectId/m/:machineId: its document (edits
 * applied at once, committed, rebased, queued offline), everyone's cursors and selections
 * on it, and follow mode. The room says who may edit and who the people are.
 */
export function MachineView({ machineId }: { machineId: string }) {
  const user = useCurrentUser();
  const projectId = useProjectId();
  const roomSend = useRoomSend();
  const canEdit = useCanEdit();
  const members = useMembers();
  const name = useMachineName(machineId);
  const userId = user?.id ?? '';

  // The room's presence says which machine this person is on.
  useEffect(() => {
    roomSend({ type: 'room.look', looking: `machine:${machineId}` });
    return () => roomSend({ type: 'room.look', looking: null });
  }, [roomSend, machineId]);

  const input = useMemo(() => ({ machineId, clientId: crypto.randomUUID(), model: chartroomModel, newBatchId: () => crypto.randomUUID() }), [machineId]);
  const doc = useActorRef(liveDocumentLogic(), { input, inspect: inspector() });
  const presence = useActorRef(liveCanvasPresenceLogic(), { input: { machineId, userId }, inspect: inspector() });

  const definition = useSelector(doc, (s) => s.context.doc?.local ?? null);
  // The canvas renders the newest definition at transition priority: a burst of remote ops
  // (a pasted 1,000-state config arrives as hundreds of rows) re-renders the diagram once
  // for the burst, not once per op, and never as a chain of synchronous updates.
  const shown = useDeferredValue(definition);
  const sync = useSelector(doc, syncOf);
  const unsent = useSelector(doc, unsentOf);
  const error = useSelector(doc, (s) => s.context.error);
  const dropped = useSelector(doc, (s) => s.context.dropped.length);
  const canUndo = useSelector(doc, (s) => s.context.history.undo.length > 0);
  const canRedo = useSelector(doc, (s) => s.context.history.redo.length > 0);
  const peersById = useSelector(presence, (s) => s.context.peers);
  const following = useSelector(presence, (s) => s.context.following);
  const followView = useSelector(presence, (s) => (s.context.following ? (s.context.peers[s.context.following]?.view ?? null) : null));

  const people = useMemo(() => new Map(members.map((m) => [m.userId, m])), [members]);
  const peers: PeerCursor[] = useMemo(
    () =>
      Object.values(peersById).map((p) => ({
        id: p.userId,
        name: people.get(p.userId)?.name ?? 'Someone',
        color: people.get(p.userId)?.color ?? '#978365',
        cursor: p.cursor,
        selection: p.selection,
      })),
    [peersById, people],
  );
  const followed = following ? people.get(following) : undefined;

  const onOps = useCallback((ops: Op[]) => doc.send({ type: 'doc.edit', ops }), [doc]);
  const onUndo = useCallback(() => doc.send({ type: 'doc.undo' }), [doc]);
  const onRedo = useCallback(() => doc.send({ type: 'doc.redo' }), [doc]);
  const onPointer = useCallback((at: Point | null) => presence.send({ type: 'presence.point', at }), [presence]);
  const onSelection = useCallback((selection: string[]) => presence.send({ type: 'presence.select', selection }), [presence]);
  const onView = useCallback((view: View) => presence.send({ type: 'presence.look', view }), [presence]);
  const onUserMove = useCallback(() => presence.send({ type: 'presence.unfollow' }), [presence]);

  return (
    <section className="machine-view" aria-label={`Machine ${name ?? ''}`.trim()} style={followed ? { boxShadow: `inset 0 0 0 3px ${followed.color}` } : undefined}>
      <div className="machine-bar">
        <a href={`/p/${projectId}`}>← Machines</a>
        <MachineTitle machineId={machineId} name={name} canEdit={canEdit} />
        <span className={`machine-sync ${sync}`} role="status" aria-live="polite" data-sync={sync}>
          {SYNC_TEXT[sync]}
          {unsent > 0 && sync !== 'synced' ? ` · ${unsent} edit${unsent === 1 ? '' : 's'} waiting` : ''}
        </span>
        <ul className="machine-peers" aria-label="On this machine">
          {peers.map((p) => {
            const m = people.get(p.id);
            return (
              <li key={p.id}>
                <button
                  type="button"
                  aria-pressed={following === p.id}
                  title={following === p.id ? `Stop following ${p.name}` : `Follow ${p.name}`}
                  aria-label={following === p.id ? `Stop following ${p.name}` : `Follow ${p.name}`}
                  onClick={() => presence.send(following === p.id ? { type: 'presence.unfollow' } : { type: 'presence.follow', userId: p.id })}
                >
                  <Avatar name={p.name} color={p.color} avatarUrl={m?.avatarUrl ?? null} online label={p.name} size={26} />
                </button>
              </li>
            );
          })}
        </ul>
      </div>
      {followed && (
        <p className="machine-following" role="status" style={{ color: followed.color }}>
          Following {followed.name}. Pan or zoom to stop.
          <button type="button" className="link" onClick={onUserMove}>Stop following</button>
        </p>
      )}
      {error && (
        <p className="message error" role="alert">
          {error}
          {sync === 'failed' && (
            <>
              {' '}
              <button type="button" className="link" onClick={() => doc.send({ type: 'doc.retry' })}>Try again</button>
            </>
          )}
        </p>
      )}
      {dropped > 0 && (
        <p className="message notice" role="status">
          {dropped === 1 ? 'One of your edits' : `${dropped} of your edits`} no longer applied after someone else's change and was dropped.
        </p>
      )}
      <div className="machine-body">
        {shown ? (
          <CanvasPage
            definition={shown}
            onOps={onOps}
            onUndo={canUndo ? onUndo : undefined}
            onRedo={canRedo ? onRedo : undefined}
            canEdit={canEdit}
            peers={peers}
            onPointer={onPointer}
            onSelection={onSelection}
            onView={onView}
            followView={followView}
            onUserMove={onUserMove}
          />
        ) : (
          sync !== 'failed' && (
            <p className="center" role="status">
              <span className="spinner" aria-hidden="true" /> Opening the machine…
            </p>
          )
        )}
      </div>
    </section>
  );
}

/** The machine's name, renamed in place by owners and editors (shared through the list). */
function MachineTitle({ machineId, name, canEdit }: { machineId: string; name: string | null; canEdit: boolean }) {
  const list = MachineListContext.useActorRef();
  const { busy, error } = useMachineListStatus();
  const [editing, setEditing] = useState(false);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = new FormData(event.currentTarget).get('name');
    if (typeof value === 'string' && value.trim() !== '' && value.trim() !== name) list.send({ type: 'list.rename', machineId, name: value });
    setEditing(false);
  };
  if (editing && canEdit) {
    return (
      <form className="room-rename" onSubmit={onSubmit}>
        <label htmlFor="machine-name-input">Machine name</label>
        <input id="machine-name-input" name="name" defaultValue={name ?? ''} maxLength={120} required autoFocus onKeyDown={(e) => e.key === 'Escape' && setEditing(false)} />
        <button type="submit" className="primary">Save name</button>
        <button type="button" onClick={() => setEditing(false)}>Cancel</button>
      </form>
    );
  }
  return (
    <>
      <h2 id="machine-title">{name ?? 'Machine'}</h2>
      {editing && !canEdit && <DiscardedEdit what="machine name" onDismiss={() => setEditing(false)} />}
      {canEdit && (
        <button type="button" className="ghost" disabled={busy} onClick={() => setEditing(true)}>
          Rename machine
        </button>
      )}
      {error && (
        <span className="message error" role="alert">
          {error}{' '}
          <button type="button" className="link" onClick={() => list.send({ type: 'list.dismissError' })}>Dismiss</button>
        </span>
      )}
    </>
  );
}
