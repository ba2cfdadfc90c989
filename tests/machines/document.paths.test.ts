import { vi } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { documentMachine, type DocumentEvent } from '../../machines/open-machine/document.machine.ts';
import { hasUnsent } from '../../src/lib/collab/doc.ts';
import type { CommittedOp } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { OpStreamEvent } from '../../src/lib/ports/document.ts';
import { emptyDefinition } from '../adapters/machines-fixtures.ts';
import { fakeDocumentBackend, flush, MACHINE_ID, rename, renameModel } from './document.fakes.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';

/**
 * Path tests: every state of the document machine is reached by a
 * shortest path, and every path and every edge of its graph is replayed on the running
 * machine with the fake adapter: requests settled with the graph event's output, delays
 * taken by advancing fake timers. A snapshot is keyed by its state and what the views
 * read from it (unsent edits, undo and redo), not by batch ids or versions, which keeps
 * the graph finite.
 */

type Snapshot = SnapshotFrom<typeof documentMachine>;
type GraphEvent = DocumentEvent | { type: string; output?: unknown; error?: unknown };

const AFTER = {
  retryDelay: 'xstate.after.retryDelay.document.ready.offline',
  quietResync: 'xstate.after.quietResync.document.ready.online.idle',
};
const DELAY_MS: Record<string, number> = { [AFTER.retryDelay]: 2_000, [AFTER.quietResync]: 30_000 };

const theirs = (seq: number): CommittedOp<Op> => ({
  seq,
  batchId: `their-${seq}`,
  clientId: 'them',
  op: rename(`theirs ${seq}`),
});
const done = (actor: string, output: unknown): GraphEvent => ({ type: `xstate.done.actor.${actor}`, output });
const crashed = (actor: string): GraphEvent => ({
  type: `xstate.error.actor.${actor}`,
  error: new Error(`${actor} crashed`),
});
const network = { ok: false, error: { code: 'network', message: "Can't reach the server." } };
const saved = { confirmed: emptyDefinition('door'), version: 0, inflight: null, pending: [rename('stored')] };

const events: GraphEvent[] = [
  { type: 'doc.edit', ops: [rename('edited')] },
  { type: 'doc.undo' },
  { type: 'doc.redo' },
  { type: 'doc.retry' },
  { type: 'ops.received', ops: [theirs(1)] },
  { type: 'ops.received', ops: [theirs(9)] },
  { type: 'ops.subscribed' },
  { type: 'connection.lost' },
  { type: 'connection.restored' },
  done('loadQueue', null),
  done('loadQueue', saved),
  crashed('loadQueue'),
  done('loadMachine', {
    ok: true,
    value: {
      id: MACHINE_ID,
      projectId: 'p',
      name: 'door',
      version: 0,
      createdBy: null,
      createdAt: '',
      updatedAt: '',
      definition: emptyDefinition('door'),
      tail: [],
    },
  }),
  done('loadMachine', { ok: false, error: { code: 'not_found', message: 'gone' } }),
  crashed('loadMachine'),
  done('commitOps', { ok: true, receipt: { firstSeq: 1, lastSeq: 1, version: 1, duplicate: false } }),
  done('commitOps', { ok: true, receipt: { firstSeq: 1, lastSeq: 1, version: 5, duplicate: true } }),
  // Appended behind ops this client has not seen yet: acknowledged, the log is read.
  done('commitOps', { ok: true, receipt: { firstSeq: 3, lastSeq: 3, version: 3, duplicate: false } }),
  done('commitOps', { ok: false, error: { code: 'too_big', message: 'too big' } }),
  done('commitOps', network),
  done('commitOps', { ok: false, error: { code: 'forbidden', message: 'no' } }),
  done('commitOps', { ok: false, error: { code: 'unknown', message: 'The server failed' } }),
  crashed('commitOps'),
  done('fetchOps', { ok: true, value: [] }),
  done('fetchOps', network),
  crashed('fetchOps'),
  { type: AFTER.retryDelay },
  { type: AFTER.quietResync },
];

let batches = 0;
const input = () => ({ machineId: MACHINE_ID, clientId: 'me', model: renameModel, newBatchId: () => `b${++batches}` });

const key = (s: Snapshot) =>
  JSON.stringify({
    value: s.value,
    unsent: s.context.doc !== null && hasUnsent(s.context.doc),
    undo: s.context.history.undo.length > 0,
    redo: s.context.history.redo.length > 0,
    failed: s.context.error !== null,
    refused: s.context.refused,
    // Acknowledged at seqs not yet seen: the document waits for the log, it does not resend.
    acked: (s.context.doc?.inflight?.acked ?? null) !== null,
  });

const traversal = {
  input: input(),
  events: events as DocumentEvent[],
  filterEvents: (snapshot: Snapshot, event: DocumentEvent) => snapshot.can(event),
  serializeState: (snapshot: Snapshot) => key(snapshot),
  serializeEvent: (event: DocumentEvent) => JSON.stringify(event),
};

async function replay(steps: readonly GraphEvent[]) {
  const backend = fakeDocumentBackend();
  const actor = createActor(documentMachine.provide({ actors: backend.actors }), { input: input() }).start();
  const take = async (event: GraphEvent) => {
    if (await settleRequest(backend, event)) return;
    const delay = DELAY_MS[event.type];
    if (delay !== undefined) await vi.advanceTimersByTimeAsync(delay);
    else if (event.type.startsWith('doc.') || event.type === 'connection.restored') actor.send(event as DocumentEvent);
    else backend.emit(event as OpStreamEvent);
  };
  for (const event of steps) {
    await take(event);
    await flush();
  }
  return actor;
}

describeMachinePaths('document machine', {
  machine: documentMachine,
  traversal,
  replay,
  observe: key,
  minEdges: 40,
  fakeTimers: true,
});
