import type { ActorRefFrom } from 'xstate';
import type { commentCountsMachine } from '../../../machines/room/comment-counts.machine.ts';
import type { UnreadCount } from '../../lib/ports/comment-counts.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { useMachineListRef } from '../room/room-context.ts';

/**
 * This person's unread comments on one machine of the room (threads with something new
 * from others, and new mentions of them), live: the machine list's `commentCounts` child.
 */

type CountsActor = ActorRefFrom<typeof commentCountsMachine>;
const NONE: UnreadCount = { threads: 0, mentions: 0 };

const useCountsRef = (): CountsActor | undefined =>
  useChildSelector(useMachineListRef(), (s) => s.children.commentCounts, undefined);

export const useRoomUnread = (machineId: string): UnreadCount =>
  useChildSelector(
    useCountsRef(),
    (s) => s.context.counts[machineId] ?? NONE,
    NONE,
    (a, b) => a.threads === b.threads && a.mentions === b.mentions,
  );
