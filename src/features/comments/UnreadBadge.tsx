import { useRoomUnread } from './room-unread.ts';
import './comments.css';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * A machine card's unread comments, for the signed-in person: a bubble with the unread
 * threads, and "@n" beside it for new mentions of them; nothing when all is read.
 */
export function UnreadBadge({ machineId, name }: { machineId: string; name: string }) {
  const { threads, mentions } = useRoomUnread(machineId);
  if (threads === 0 && mentions === 0) return null;
  const words = `${plural(threads, 'unread comment thread', 'unread comment threads')}${
    mentions > 0 ? `, ${plural(mentions, 'mention of you', 'mentions of you')}` : ''
  } on ${name}`;
  return (
    <span
      className="room-unread"
      role="status"
      aria-label={words}
      title={words}
      data-unread-threads={threads}
      data-unread-mentions={mentions}
    >
      <span className="room-unread-threads" aria-hidden="true">
        <svg viewBox="0 0 16 16" width="12" height="12">
          <path d="M2 3.5A1.5 1.5 0 0 1 3.5 2h9A1.5 1.5 0 0 1 14 3.5v6a1.5 1.5 0 0 1-1.5 1.5H7l-3 3v-3h-.5A1.5 1.5 0 0 1 2 9.5z" />
        </svg>
        {threads}
      </span>
      {mentions > 0 && (
        <span className="room-unread-mentions" aria-hidden="true">
          @{mentions}
        </span>
      )}
    </span>
  );
}
