import { Avatar } from '../room/Avatar.tsx';
import {
  useCanSignOut,
  useCurrentUser,
  useDisplayName,
  useOwnLook,
  useSessionSend,
  useSessionStatus,
} from './session-context.ts';

/** The top bar's account corner: who you are, and the way out. */
export function SessionBar() {
  const user = useCurrentUser();
  const displayName = useDisplayName();
  const status = useSessionStatus();
  const canSignOut = useCanSignOut();
  const look = useOwnLook();
  const send = useSessionSend();
  if (!user) return null;
  // The account itself (email, or that it is a guest) stays on hover once the name is known.
  const account = user.isAnonymous ? 'Guest' : (user.email ?? 'Signed in');
  const name = displayName ?? account;
  return (
    <div className="session-bar">
      {/* The person's own colour and image, as everyone else sees them in the room. */}
      <Avatar
        name={name}
        color={look?.color ?? 'var(--accent)'}
        avatarUrl={look?.avatarUrl ?? null}
        online={false}
        label={`You: ${name}`}
        size={26}
      />
      <span className="who" data-testid="current-user" title={account}>
        {name}
      </span>
      <button
        type="button"
        className="ghost"
        disabled={!canSignOut}
        aria-busy={status === 'signingOut'}
        onClick={() => send({ type: 'session.signOut' })}
      >
        Sign out
      </button>
    </div>
  );
}
