import { placeAnchor, type PlacedAnchor } from '../../lib/comments/threads.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type { CommentAnchor } from '../../lib/ports/comments.ts';
import {
  CommentsScope,
  useCanComment,
  useCommentsBusy,
  useCommentsError,
  useCommentsLoading,
  useCommentsSend,
  useComposing,
  useThreads,
  type CommentsActor,
} from '../comments/comments-selectors.ts';
import { CommentsAlert, NewThread, Threads, useCommentPeople } from '../comments/Thread.tsx';

const NO_ENTRIES: never[] = [];

/**
 * An opened proposal's discussion: its draft's comment threads, live (the comments machine
 * on the draft, `discussion`), open first. Members of any role reply, resolve, reopen and
 * start a thread on the proposal as a whole (on the draft's root state: "the whole
 * proposal"); guests read. The same threads are on the draft's Comments panel.
 */
export function ProposalDiscussion({
  discussion,
  chart,
  draftHref,
}: {
  discussion: CommentsActor;
  chart: MachineDefinition;
  draftHref: string;
}) {
  return (
    <CommentsScope.Provider value={discussion}>
      <Discussion chart={chart} draftHref={draftHref} />
    </CommentsScope.Provider>
  );
}

function Discussion({ chart, draftHref }: { chart: MachineDefinition; draftHref: string }) {
  const threads = useThreads();
  const composing = useComposing();
  const canComment = useCanComment();
  const busy = useCommentsBusy();
  const loading = useCommentsLoading();
  const error = useCommentsError();
  const send = useCommentsSend();
  const { mentionable } = useCommentPeople();
  const whole: CommentAnchor = { kind: 'state', value: chart.root };
  const place = (anchor: CommentAnchor): PlacedAnchor =>
    anchor.kind === 'state' && anchor.value === chart.root
      ? { key: null, label: 'the whole proposal', orphaned: false }
      : placeAnchor(chart, anchor);
  const sorted = [...threads].sort(
    (a, b) => Number(a.resolvedAt !== null) - Number(b.resolvedAt !== null) || b.createdAt.localeCompare(a.createdAt),
  );
  const open = threads.filter((t) => t.resolvedAt === null).length;
  return (
    <section className="pr-discussion" aria-label="Discussion">
      <header className="pr-discussion-head">
        <h4>
          Discussion{' '}
          <span className="pr-discussion-count" role="status">
            {loading && threads.length === 0
              ? 'reading…'
              : threads.length === 0
                ? 'no threads yet'
                : `${threads.length} ${threads.length === 1 ? 'thread' : 'threads'}, ${open} open`}
          </span>
        </h4>
        {canComment && composing === null && (
          <button type="button" onClick={() => send({ type: 'comments.compose', anchor: whole })}>
            New thread
          </button>
        )}
      </header>
      <CommentsAlert error={error} />
      {composing && <NewThread on={place(composing).label} members={mentionable} busy={busy} />}
      {!canComment && <p className="cm-note">Guests read the discussion; members write in it.</p>}
      <Threads threads={sorted} place={place} entries={NO_ENTRIES} />
      <a className="pr-discussion-link" href={draftHref}>
        Open the draft to comment on its states and transitions
      </a>
    </section>
  );
}
