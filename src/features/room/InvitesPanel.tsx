import { useState, type FormEvent } from 'react';
import type { Invite } from '../../lib/ports/room.ts';
import { useCreatedInvite, useInvites, useInvitesError, useInvitesSend, useInvitesStatus } from './invites-context.ts';
import { usesText } from './uses-text.ts';
import { useRoomSend } from './room-context.ts';

export const inviteUrl = (token: string): string => `${window.location.origin}/invite/${token}`;

const formatExpiry = (iso: string): string =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Owners create invite links (role, expiry), copy them, and revoke the ones still live. */
export function InvitesPanel() {
  const send = useInvitesSend();
  const status = useInvitesStatus();
  const error = useInvitesError();
  const invites = useInvites();
  const created = useCreatedInvite();
  const sendRoom = useRoomSend();

  const onCreate = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const role = data.get('role') === 'viewer' ? 'viewer' : 'editor';
    const days = Number(data.get('expires'));
    send({ type: 'invites.create', role, expiresInDays: Number.isFinite(days) && days > 0 ? days : 7 });
  };

  return (
    <section
      className="card room-panel"
      aria-labelledby="invites-title"
      onFocus={() => sendRoom({ type: 'room.look', looking: 'invites' })}
    >
      <h2 id="invites-title">Invite people</h2>
      <form className="room-invite-form" onSubmit={onCreate} aria-busy={status === 'busy'}>
        <label htmlFor="invite-role">Invite role</label>
        <select id="invite-role" name="role" defaultValue="editor">
          <option value="editor">Editor</option>
          <option value="viewer">Viewer</option>
        </select>
        <label htmlFor="invite-expires">Link expires</label>
        <select id="invite-expires" name="expires" defaultValue="7">
          <option value="1">In 1 day</option>
          <option value="7">In 7 days</option>
          <option value="30">In 30 days</option>
        </select>
        <button type="submit" className="primary" disabled={status !== 'ready'}>
          Create invite link
        </button>
      </form>
      {error && (
        <p className="message error" role="alert">
          {error}{' '}
          {status === 'loadFailed' && (
            <button type="button" onClick={() => send({ type: 'invites.retry' })}>
              Retry
            </button>
          )}
        </p>
      )}
      {created && <CreatedLink invite={created} />}
      <h3>Active invite links</h3>
      {status === 'loading' ? (
        <p role="status">Loading invites…</p>
      ) : invites.length === 0 ? (
        <p className="room-muted">No active invite links.</p>
      ) : (
        <ul className="room-invites" aria-label="Active invite links">
          {invites.map((invite) => (
            <li key={invite.id}>
              <span>
                {invite.role === 'editor' ? 'Editor' : 'Viewer'} link, expires {formatExpiry(invite.expiresAt)},{' '}
                {usesText(invite.uses, invite.maxUses)}
              </span>
              <button
                type="button"
                disabled={status !== 'ready'}
                aria-label={`Revoke ${invite.role} link expiring ${formatExpiry(invite.expiresAt)}`}
                onClick={() => send({ type: 'invites.revoke', inviteId: invite.id })}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

type CopyState = 'idle' | 'copied' | 'failed';

function CreatedLink({ invite }: { invite: Invite }) {
  const url = inviteUrl(invite.token);
  const [copy, setCopy] = useState<CopyState>('idle');
  const onCopy = () => {
    // The clipboard is the browser's, not data: the one side effect a view may own.
    navigator.clipboard.writeText(url).then(
      () => setCopy('copied'),
      () => setCopy('failed'),
    );
  };
  return (
    <div className="room-created-link">
      <label htmlFor="invite-link">Invite link</label>
      <input id="invite-link" readOnly value={url} onFocus={(event) => event.currentTarget.select()} />
      <button type="button" onClick={onCopy}>
        Copy link
      </button>
      <span role="status" aria-live="polite">
        {copy === 'copied'
          ? 'Copied to clipboard'
          : copy === 'failed'
            ? "Couldn't copy: select the link and copy it yourself."
            : ''}
      </span>
    </div>
  );
}
