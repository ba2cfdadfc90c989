import { assertEvent, assign, raise, sendTo, setup } from 'xstate';
import {
  canSend,
  committed,
  createDoc,
  dropQueue,
  edit,
  forget,
  hasUnsent,
  isShownRemote,
  receive,
  type Landed,
  type Received,
  restoreDoc,
  seen,
  snapshotOf,
  takeBatch,
  tooBig,
} from '../../src/lib/collab/doc.ts';
import { recordEdit, redo, undo, type History } from '../../src/lib/collab/history.ts';
import { explainWith } from '../../src/lib/collab/rebase.ts';
import type {
  CommitReceipt,
  CommittedOp,
  DocState,
  DroppedOp,
  OpModel,
  QueueSnapshot,
  RemoteBatch,
} from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type {
  CommitRequest,
  CommitResult,
  LoadedMachine,
  OpStreamEvent,
  Result,
} from '../../src/lib/ports/document.ts';
import { callbackNotProvided, requestNotProvided, streamNotProvided, UNEXPECTED } from '../shared.ts';

/** The document machine's types and implementations (actors, delays, actions, guards); its chart is document.machine.ts. */

type Doc = DocState<MachineDefinition, Op>;
type Snapshot = QueueSnapshot<MachineDefinition, Op>;

/** What a person asks for, imperative. */
export type DocumentIntent =
  { type: 'doc.edit'; ops: Op[] } | { type: 'doc.undo' } | { type: 'doc.redo' } | { type: 'doc.retry' };

/** Facts from the server, the stream and the network, past tense. */
export type DocumentFact =
  | OpStreamEvent
  | { type: 'ops.committed'; batchId: string; receipt: CommitReceipt }
  | { type: 'commit.refused'; batchId: string; message: string }
  /** The server failed for its own reasons (5xx and the like): keep the queue, try later. */
  | { type: 'commit.failed'; message: string }
  | { type: 'connection.restored' }
  /** Another editor's batch, shown since `ops.seen`, was never confirmed in time: roll it back. */
  | { type: 'seen.expired'; batchId: string };

export type DocumentEvent = DocumentIntent | DocumentFact;

export interface DocumentInput {
  machineId: string;
  /** This tab's id in the log (`client_id`). */
  clientId: string;
  model: OpModel<MachineDefinition, Op>;
  newBatchId: () => string;
}

export interface DocumentContext extends DocumentInput {
  doc: Doc | null;
  history: History<Op>;
  /** This person's ops that did not apply after others' edits, with why in words (last report). */
  dropped: DroppedOp<Op>[];
  /** The last failure or refusal, in words for people. */
  error: string | null;
  /** The server refused an edit since the last acknowledged append (the label must not say "Saved"). */
  refused: boolean;
  /** The batch id of the commit request on the wire, to match its answer. */
  sending: string | null;
}

export type DocumentTag = 'loading' | 'ready' | 'saving' | 'syncing' | 'synced' | 'unsaved' | 'offline' | 'failed';

/** The sync tags: exactly one is on every state under `ready`. */
export const SYNC_TAGS = [
  'synced',
  'saving',
  'syncing',
  'unsaved',
  'offline',
] as const satisfies readonly DocumentTag[];

export type QueueCommand = { type: 'queue.save'; snapshot: Snapshot | null };

type Model = OpModel<MachineDefinition, Op>;
type Memo<K extends object, R> = WeakMap<K, { model: Model; doc: Doc; batchId: string; result: R }>;

/**
 * A gap guard and its transition's action need the same rebase: it is computed once per
 * delivery (keyed by the delivered ops array or the commit receipt) and reused while the
 * model and the document it ran on are still the ones in hand, so every remote op is
 * rebased once however long the pending queue.
 */
function rebasedOnce<K extends object, R>(
  memo: Memo<K, R>,
  key: K,
  at: { model: Model; doc: Doc; batchId: string },
  rebase: () => R,
): R {
  const known = memo.get(key);
  if (known && known.model === at.model && known.doc === at.doc && known.batchId === at.batchId) return known.result;
  const result = rebase();
  memo.set(key, { ...at, result });
  return result;
}

const receivedMemo: Memo<CommittedOp<Op>[], Received<MachineDefinition, Op>> = new WeakMap();
const landedMemo: Memo<CommitReceipt, Landed<MachineDefinition, Op>> = new WeakMap();

const received = (model: Model, doc: Doc, ops: CommittedOp<Op>[]) =>
  rebasedOnce(receivedMemo, ops, { model, doc, batchId: '' }, () => receive(model, doc, ops));

const landed = (model: Model, doc: Doc, batchId: string, receipt: CommitReceipt) =>
  rebasedOnce(landedMemo, receipt, { model, doc, batchId }, () => committed(model, doc, batchId, receipt));

/** The stored queue a `hasSaved` answer holds (`restoreQueue`'s params). */
export const savedQueue = ({ event }: { event: { output: Snapshot | null } }) => event.output!;

/** A commit's answer and the batch it answers (`reportCommit`'s params). */
export const commitAnswer = ({ event, context }: { event: { output: CommitResult }; context: DocumentContext }) => ({
  ...event.output,
  batchId: context.sending ?? '',
});

export const documentSetup = setup({
  types: {
    input: {} as DocumentInput,
    context: {} as DocumentContext,
    events: {} as DocumentEvent,
    tags: {} as DocumentTag,
  },
  actors: {
    loadQueue: requestNotProvided<Snapshot | null, { machineId: string }>('document', 'loadQueue'),
    loadMachine: requestNotProvided<Result<LoadedMachine>, { machineId: string }>('document', 'loadMachine'),
    queueStore: callbackNotProvided<QueueCommand, { machineId: string }>('document', 'queueStore'),
    opEvents: streamNotProvided<OpStreamEvent, { machineId: string }>('document', 'opEvents'),
    commitOps: requestNotProvided<CommitResult, CommitRequest>('document', 'commitOps'),
    fetchOps: requestNotProvided<Result<CommittedOp<Op>[]>, { machineId: string; after: number }>(
      'document',
      'fetchOps',
    ),
  },
  delays: {
    /** How long to wait before trying the server again after a failure. */
    retryDelay: 2_000,
    /** A quiet document checks the log now and then: a lost last message leaves no gap to see. */
    quietResync: 30_000,
    /**
     * How long another editor's batch shows before the log confirms it: longer than any
     * append takes; past it the batch is rolled back (its author went offline, or was refused).
     */
    seenTimeout: 10_000,
  },
  actions: {
    restoreQueue: assign(({ context }, saved: Snapshot) => {
      const restored = restoreDoc(context.model, saved);
      return { doc: restored.state, dropped: restored.dropped };
    }),
    /** The checkpoint, then the log after it. */
    startDoc: assign(({ context }, loaded: LoadedMachine) => ({
      doc: receive(context.model, createDoc<MachineDefinition, Op>(loaded.definition, loaded.version), loaded.tail)
        .state,
    })),
    showLoadFailure: assign((_, result: Result<LoadedMachine>) => ({ error: result.ok ? null : result.error.message })),
    showUnexpected: assign({ error: UNEXPECTED }),
    applyEdit: assign(({ context, event }) => {
      assertEvent(event, 'doc.edit');
      const doc = context.doc;
      if (!doc) return {};
      const big = tooBig(event.ops);
      if (big) return { error: big };
      const result = edit(context.model, doc, event.ops);
      if (!result.ok)
        return { error: result.error instanceof Error ? result.error.message : 'That edit does not apply.' };
      return {
        doc: result.state,
        history: recordEdit(context.model, context.history, doc.local, event.ops),
        error: null,
      };
    }),
    applyUndo: assign(({ context, event }) => {
      assertEvent(event, ['doc.undo', 'doc.redo']);
      const doc = context.doc;
      if (!doc) return {};
      const step = (event.type === 'doc.undo' ? undo : redo)(context.model, context.history, doc.local);
      if (!step) return {};
      const applied = edit(context.model, doc, step.ops);
      const dropped = step.dropped.map((op) => ({ op, reason: explainWith(context.model, op, null) }));
      return { history: step.history, dropped, doc: applied.ok ? applied.state : doc };
    }),
    takeBatch: assign(({ context }) => {
      if (!context.doc) return {};
      const taken = takeBatch(context.doc, context.newBatchId);
      return taken ? { doc: taken.state, sending: taken.batch.batchId } : { sending: null };
    }),
    /** A commit's answer, told as the fact it is (`ops.committed`, `commit.refused`, ...), with the batch it answers. */
    reportCommit: raise((_, result: CommitResult & { batchId: string }): DocumentEvent => {
      if (result.ok) return { type: 'ops.committed', batchId: result.batchId, receipt: result.receipt };
      if (result.error.code === 'network') return { type: 'connection.lost' };
      if (result.error.code === 'unknown') return { type: 'commit.failed', message: result.error.message };
      return { type: 'commit.refused', batchId: result.batchId, message: result.error.message };
    }),
    applyCommitted: assign(({ context, event }) => {
      assertEvent(event, 'ops.committed');
      if (!context.doc) return {};
      const result = landed(context.model, context.doc, event.batchId, event.receipt);
      return result.dropped.length > 0
        ? { doc: result.state, dropped: result.dropped, refused: false }
        : { doc: result.state, refused: false };
    }),
    /** The server will never take these ops (no permission, refused input): show what it said, drop them. */
    discardUnsent: assign(({ context, event }) => {
      assertEvent(event, 'commit.refused');
      const doc = context.doc;
      if (!doc) return {};
      // The refusal's words (the error) say what happened to them; `dropped` is for rebase losses.
      return {
        doc: dropQueue(context.model, doc),
        dropped: [],
        error: event.message,
        refused: true,
      };
    }),
    applyReceived: assign(({ context }, ops: CommittedOp<Op>[]) => {
      if (!context.doc) return {};
      const got = received(context.model, context.doc, ops);
      return got.dropped.length > 0 ? { doc: got.state, dropped: got.dropped } : { doc: got.state };
    }),
    /** Another editor's batch, shown at once over the log, until the log's copy arrives. */
    showSeen: assign(({ context }, batch: RemoteBatch<Op>) =>
      context.doc ? { doc: seen(context.model, context.doc, batch) } : {},
    ),
    /** Rolls it back if the log has not confirmed it by then. */
    expireSeen: raise(
      (_, batch: RemoteBatch<Op>): DocumentEvent => ({ type: 'seen.expired', batchId: batch.batchId }),
      {
        delay: 'seenTimeout',
      },
    ),
    forgetSeen: assign(({ context, event }) => {
      assertEvent(event, 'seen.expired');
      if (!context.doc) return {};
      const gone = forget(context.model, context.doc, event.batchId);
      return gone.dropped.length > 0 ? { doc: gone.state, dropped: gone.dropped } : { doc: gone.state };
    }),
    showCommitFailure: assign(({ event }) => {
      assertEvent(event, 'commit.failed');
      return { error: event.message };
    }),
    showFetchFailure: assign((_, result: Result<CommittedOp<Op>[]>) => ({
      error: result.ok ? null : result.error.message,
    })),
    saveQueue: sendTo('queueStore', ({ context }): QueueCommand => ({
      type: 'queue.save',
      snapshot: context.doc && hasUnsent(context.doc) ? snapshotOf(context.doc) : null,
    })),
    clearError: assign({ error: null }),
  },
  guards: {
    hasUnsent: ({ context }) => context.doc !== null && hasUnsent(context.doc),
    canSend: ({ context }) => context.doc !== null && canSend(context.doc),
    lastRefused: ({ context }) => context.refused,
    hasSaved: (_, saved: Snapshot | null) => saved !== null,
    refused: (_, result: Result<unknown>) => !result.ok,
    stillShown: ({ context, event }) => {
      assertEvent(event, 'seen.expired');
      return context.doc !== null && isShownRemote(context.doc, event.batchId);
    },
    canUndo: ({ context }) => context.history.undo.length > 0,
    canRedo: ({ context }) => context.history.redo.length > 0,
    revealsGap: ({ context, event }) => {
      assertEvent(event, 'ops.received');
      return context.doc !== null && received(context.model, context.doc, event.ops).gap;
    },
    committedWithGap: ({ context, event }) => {
      assertEvent(event, 'ops.committed');
      return context.doc !== null && landed(context.model, context.doc, event.batchId, event.receipt).gap;
    },
  },
});
