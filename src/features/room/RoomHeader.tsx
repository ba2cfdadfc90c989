import { useState, type FormEvent } from 'react';
import { Avatar } from './Avatar.tsx';
import { DiscardedEdit } from './DiscardedEdit.tsx';
import {
  useAdminBusy,
  useCanEdit,
  useMyRole,
  usePeers,
  useProjectName,
  useRoomSend,
  useRoomStatus,
} from './room-context.ts';

const STATUS_TEXT = {
  joining: 'Connecting…',
  live: 'Live',
  resyncing: 'Reconnecting…',
  failed: 'Offline',
  removed: 'Closed',
} as const;

/** The project's name (live), the room's status, who is here, and renaming for editors. */
export function RoomHeader() {
  const name = useProjectName();
  const status = useRoomStatus();
  const canEdit = useCanEdit();
  const role = useMyRole();
  const peers = usePeers();
  const { busy } = useAdminBusy();
  const send = useRoomSend();
  const [editing, setEditing] = useState(false);

  const onRename = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = new FormData(event.currentTarget).get('name');
    if (typeof value === 'string') send({ type: 'room.rename', name: value });
    setEditing(false);
  };

  return (
    <header className="room-header">
      <div className="room-title-row">
        {editing && canEdit ? (
          <form className="room-rename" onSubmit={onRename}>
            <label htmlFor="room-name-input">Project name</label>
            <input id="room-name-input" name="name" defaultValue={name ?? ''} maxLength={120} required autoFocus />
            <button type="submit" className="primary">
              Save name
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <>
            <h1 id="room-title">{name ?? 'Project'}</h1>
            {canEdit && (
              <button type="button" className="ghost" disabled={busy} onClick={() => setEditing(true)}>
                Rename project
              </button>
            )}
          </>
        )}
        <span className={`room-live room-live-${status}`} role="status" aria-live="polite">
          {STATUS_TEXT[status]}
        </span>
      </div>
      {editing && !canEdit && <DiscardedEdit what="project name" onDismiss={() => setEditing(false)} />}
      <div className="room-subtitle">
        {role === 'viewer' || role === null ? (
          <span className="room-readonly">Read-only: you are viewing this project.</span>
        ) : (
          <span>You are {role === 'owner' ? 'an owner' : 'an editor'}.</span>
        )}
        <ul className="room-here" aria-label="Here now">
          {peers.map((peer) => (
            <li key={peer.userId}>
              <Avatar
                name={peer.name}
                color={peer.color}
                avatarUrl={peer.avatarUrl}
                online
                label={`${peer.name} is here`}
                size={28}
              />
            </li>
          ))}
        </ul>
      </div>
    </header>
  );
}
