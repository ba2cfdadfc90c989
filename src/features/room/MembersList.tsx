import { useState } from 'react';
import { lookingAtMachine } from '../../../machines/room/room.machine.ts';
import type { Role } from '../../lib/ports/room.ts';
import { useMachines } from '../machines/machine-list-context.ts';
import { Avatar } from './Avatar.tsx';
import { useAdminBusy, useAdminError, useIsOwner, useMembers, useRoomSend, type MemberView } from './room-context.ts';

const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', editor: 'Editor', viewer: 'Viewer' };

/** Members with roles and presence; owners change roles and remove people (with a confirmation). */
export function MembersList() {
  const members = useMembers();
  const isOwner = useIsOwner();
  const adminError = useAdminError();
  const send = useRoomSend();
  return (
    <section
      className="card room-panel"
      aria-labelledby="members-title"
      onFocus={() => send({ type: 'room.look', looking: 'members' })}
    >
      <h2 id="members-title">Members</h2>
      {adminError && (
        <p className="message error" role="alert">
          {adminError}{' '}
          <button type="button" className="link" onClick={() => send({ type: 'room.dismissError' })}>
            Dismiss
          </button>
        </p>
      )}
      <ul className="room-members">
        {members.map((member) => (
          <MemberRow key={member.userId} member={member} manage={isOwner && !member.isPrimaryOwner && !member.isMe} />
        ))}
      </ul>
    </section>
  );
}

function MemberRow({ member, manage }: { member: MemberView; manage: boolean }) {
  const send = useRoomSend();
  const { busy, target } = useAdminBusy();
  const [confirming, setConfirming] = useState(false);
  const working = busy && target === member.userId;
  return (
    <li className="room-member" aria-busy={working}>
      <Avatar
        name={member.name}
        color={member.color}
        avatarUrl={member.avatarUrl}
        online={member.online}
        label={`${member.name}${member.online ? ' (online)' : ''}`}
      />
      <span className="room-member-name">
        <span>
          {member.name}
          {member.isMe && <span className="room-muted"> (you)</span>}
        </span>
        <span className="room-muted room-member-presence">
          {member.online ? <Looking looking={member.looking} /> : 'offline'}
        </span>
      </span>
      {manage ? (
        <select
          aria-label={`Role for ${member.name}`}
          value={member.role}
          disabled={busy}
          onChange={(event) =>
            send({ type: 'room.changeRole', userId: member.userId, role: event.target.value as Role })
          }
        >
          <option value="owner">Owner</option>
          <option value="editor">Editor</option>
          <option value="viewer">Viewer</option>
        </select>
      ) : (
        <span className="room-role">{ROLE_LABEL[member.role]}</span>
      )}
      {manage &&
        (confirming ? (
          <span className="room-confirm" role="group" aria-label={`Confirm removing ${member.name}`}>
            <span>Remove {member.name}?</span>
            <button
              type="button"
              className="danger"
              disabled={busy}
              autoFocus
              onClick={() => {
                setConfirming(false);
                send({ type: 'room.removeMember', userId: member.userId });
              }}
            >
              Confirm removal
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="room-member-remove"
            aria-label={`Remove ${member.name}`}
            title={`Remove ${member.name} from the project`}
            disabled={busy}
            onClick={() => setConfirming(true)}
          >
            <span aria-hidden="true">✕</span>
          </button>
        ))}
    </li>
  );
}

/** Where an online member is: a machine by its name, a panel, or just here. */
function Looking({ looking }: { looking: string | null }) {
  const machines = useMachines();
  if (!looking) return <>online</>;
  if (looking.startsWith('machine:')) {
    const machine = machines.find((m) => lookingAtMachine(m.id) === looking);
    return <>online, on {machine ? machine.name : 'a machine'}</>;
  }
  return <>online, looking at {looking}</>;
}
