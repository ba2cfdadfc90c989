import { useSelector } from '@xstate/react';
import { useCallback, useContext } from 'react';
import type { SnapshotFrom } from 'xstate';
import type { CommentsIntent, commentsMachine } from '../../../machines/open-machine/comments.machine.ts';
import { unread } from '../../lib/comments/threads.ts';
import type { Comment, CommentAnchor, CommentThread } from '../../lib/ports/comments.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { OpenMachineRefContext } from '../canvas/open-machine-context.ts';

/**
 * Named selector hooks over the open machine's `comments` child, for the Comments panel,
 * the diagram's pins, the Comment tool and the panel tab's unread count. Outside an open
 * machine (a diagram drawn elsewhere) they answer their fallbacks.
 */

type CommentsSnapshot = SnapshotFrom<typeof commentsMachine>;

const NO_THREADS: CommentThread[] = [];
const NO_COMMENTS: Comment[] = [];

export function useCommentsRef() {
  const open = useContext(OpenMachineRefContext);
  return useSelector(open ?? undefined, (s) => s?.children.comments);
}

const useComments = <T>(selector: (s: CommentsSnapshot) => T, fallback: T, compare?: (a: T, b: T) => boolean): T =>
  useChildSelector(useCommentsRef(), selector, fallback, compare);

export const useThreads = (): CommentThread[] => useComments((s) => s.context.threads, NO_THREADS);
export const useThreadComments = (): Comment[] => useComments((s) => s.context.comments, NO_COMMENTS);
export const useComposing = (): CommentAnchor | null => useComments((s) => s.context.composing, null);
/** In comment mode: the next click on the empty canvas places a thread there. */
export const usePlacing = (): boolean => useComments((s) => s.context.placing, false);
export const useCommentsShown = (): 'open' | 'resolved' => useComments((s) => s.context.show, 'open');
export const useMentionsMeOnly = (): boolean => useComments((s) => s.context.mentionsMe, false);
/** The thread a pin brought forward, and how many times one was (each time the panel scrolls to it). */
export const useFocusedThread = (): { threadId: string; times: number } | null =>
  useComments((s) => s.context.focused, null);
export const useCanComment = (): boolean => useComments((s) => s.context.canComment, false);
export const useCommentsError = (): string | null => useComments((s) => s.context.error, null);
export const useCommentsBusy = (): boolean => useComments((s) => s.hasTag('busy'), false);
export const useCommentsLoading = (): boolean => useComments((s) => s.hasTag('loading'), true);
export const useCommentsUser = (): string => useComments((s) => s.context.userId, '');

const unreadOf = (s: CommentsSnapshot) => unread(s.context.comments, s.context.userId, s.context.seenAt);
const sameUnread = (a: { threads: number; mentions: number }, b: { threads: number; mentions: number }) =>
  a.threads === b.threads && a.mentions === b.mentions;
const NONE = { threads: 0, mentions: 0 };
/** Threads with something new from others since this person last looked, and new mentions of them. */
export const useUnread = () => useComments(unreadOf, NONE, sameUnread);

/** Whether this open machine has comments at all (the panel and tool show only then). */
export const useHasComments = (): boolean => useCommentsRef() !== undefined;

export function useCommentsSend(): (intent: CommentsIntent) => void {
  const comments = useCommentsRef();
  return useCallback((intent: CommentsIntent) => comments?.send(intent), [comments]);
}
