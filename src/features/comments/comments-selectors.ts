import { useSelector } from '@xstate/react';
import { createContext, useCallback, useContext, useMemo } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { CommentsIntent, commentsMachine } from '../../../machines/open-machine/comments.machine.ts';
import { unread } from '../../lib/comments/threads.ts';
import type { Comment, CommentAnchor, CommentThread } from '../../lib/ports/comments.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { OpenMachineRefContext, useTimelineRef } from '../canvas/open-machine-context.ts';
import { stepOf } from '../../lib/comments/history-anchors.ts';
import { useSimulationRef } from '../canvas/open-machine-context.ts';
import { mergeSorted, type TimelineEntry } from '../../lib/timeline/index.ts';

/**
 * Named selector hooks over the open machine's `comments` child (or the comments machine
 * in `CommentsScope`: a proposal's discussion), for the Comments panel, the diagram's
 * pins, the Comment tool, the panel tab's unread count and a proposal's discussion.
 * Outside an open machine (a diagram drawn elsewhere) they answer their fallbacks.
 */

type CommentsSnapshot = SnapshotFrom<typeof commentsMachine>;

const NO_THREADS: CommentThread[] = [];
const NO_COMMENTS: Comment[] = [];

export type CommentsActor = ActorRefFrom<typeof commentsMachine>;

/**
 * A comments machine in place of the open machine's own: a proposal's discussion (the
 * comments machine on its draft, a child of the proposals machine). Inside it, the hooks
 * below read it and send to it.
 */
export const CommentsScope = createContext<CommentsActor | null>(null);

export function useCommentsRef(): CommentsActor | undefined {
  const scoped = useContext(CommentsScope);
  const open = useContext(OpenMachineRefContext);
  const own = useSelector(open ?? undefined, (s) => s?.children.comments);
  return scoped ?? own;
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
/** The history anchor (timeline entry, step) gone to last, and how many times one was (the dock opens its panel each time). */
export const useWentTo = (): { anchor: CommentAnchor; times: number } | null =>
  useComments((s) => s.context.wentTo, null);
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

const NO_ENTRIES: TimelineEntry[] = [];

/** The machine's timeline entries (edits, runs and their steps) where threads on its history hang; none without a timeline. */
export function useHistoryEntries(): readonly TimelineEntry[] {
  const timeline = useTimelineRef();
  const edits = useChildSelector(timeline, (s) => s.context.history.entries, NO_ENTRIES);
  const others = useChildSelector(timeline, (s) => s.context.others, NO_ENTRIES);
  return useMemo(() => mergeSorted(edits, others), [edits, others]);
}

/**
 * Goes to what a thread on the history hangs on: an edit opens in the Timeline (selected,
 * the machine shown as it was after it); a step of the run the Simulation panel has open
 * is scrubbed to there.
 */
export function useGoToHistoryAnchor(): (anchor: CommentAnchor, key: string) => void {
  const timeline = useTimelineRef();
  const simulation = useSimulationRef();
  return useCallback(
    (anchor: CommentAnchor, key: string) => {
      if (anchor.kind === 'timeline') timeline?.send({ type: 'timeline.open', key });
      const step = anchor.kind === 'step' ? stepOf(anchor.value) : null;
      if (step) simulation?.send({ type: 'sim.scrub', step: step.step });
    },
    [timeline, simulation],
  );
}

/** The run the Simulation panel has open (a thread on one of its steps can be gone to), or null. */
export const useOpenRun = (): string | null =>
  useChildSelector(useSimulationRef(), (s) => s.context.simulation?.id ?? null, null);
