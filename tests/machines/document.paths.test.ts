import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, type SnapshotFrom, type StateValue } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getStateNodes, type AdjacencyMap, type AdjacencyValue, type StatePath } from 'xstate/graph';
import { documentMachine, type DocumentEvent } from '../../machines/document.machine.ts';
import { hasUnsent } from '../../src/lib/collab/doc.ts';
import type { CommittedOp } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { OpStreamEvent } from '../../src/lib/ports/document.ts';
import { emptyDefinition } from '../adapters/machines-fixtures.ts';
import { fakeDocumentBackend, flush, MACHINE_ID, rename, renameModel } from './document.fakes.ts';

/**
 * Path tests (house style rule 12): every state of the document machine is reached by a
 * shortest path, and every path and every edge of its graph is replayed on the running
 * machine with the fake adapter: requests settled with the graph event's output, delays
 * taken by advancing fake timers. A snapshot is keyed by its state and what the views
 * read from it (unsent edits, undo and redo), not by batch ids or versions, which keeps
 * the graph finite.
 */

type Snapshot = SnapshotFrom<typeof documentMachine>;
type GraphEvent = DocumentEvent | { type: string; output?: unknown; error?: unknown };

const AFTER = {
  batchWindow: 'xstate.after.batchWindow.document.ready.online.batching',
  retryDelay: 'xstate.after.retryDelay.document.ready.offline',
  quietResync: 'xstate.after.quietResync.document.ready.online.idle',
};
const DELAY_MS: Record<string, number> = { [AFTER.batchWindow]: 20, [AFTER.retryDelay]: 2_000, [AFTER.quietResync]: 30_000 };

const theirs = (seq: number): CommittedOp<Op> => ({ seq, batchId: `their-${seq}`, clientId: 'them', op: rename(`theirs ${seq}`) });
const done = (actor: string, output: unknown): GraphEvent => ({ type: `xstate.done.actor.${actor}`, output });
const crashed = (actor: string): GraphEvent => ({ type: `xstate.error.actor.${actor}`, error: new Error(`${actor} crashed`) });
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
  done('loadMachine', { ok: true, value: { id: MACHINE_ID, projectId: 'p', name: 'door', version: 0, createdBy: null, createdAt: '', updatedAt: '', definition: emptyDefinition('door') } }),
  done('loadMachine', { ok: false, error: { code: 'not_found', message: 'gone' } }),
  crashed('loadMachine'),
  done('commitOps', { ok: true, receipt: { firstSeq: 1, lastSeq: 1, version: 1, duplicate: false } }),
  done('commitOps', { ok: true, receipt: { firstSeq: 1, lastSeq: 1, version: 5, duplicate: true } }),
  done('commitOps', { ok: false, error: { code: 'conflict', message: 'conflict' }, currentVersion: 3 }),
  done('commitOps', network),
  done('commitOps', { ok: false, error: { code: 'forbidden', message: 'no' } }),
  done('commitOps', { ok: false, error: { code: 'unknown', message: 'The server failed' } }),
  crashed('commitOps'),
  done('fetchOps', { ok: true, value: [] }),
  done('fetchOps', network),
  crashed('fetchOps'),
  { type: AFTER.batchWindow },
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
  for (const event of steps) {
    const request = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
    const delay = DELAY_MS[event.type];
    if (request) {
      const name = request[2] as 'loadQueue' | 'loadMachine' | 'commitOps' | 'fetchOps';
      if (request[1] === 'done') await backend.settle(name, 'output' in event ? event.output : undefined);
      else await backend.fail(name, 'error' in event ? event.error : undefined);
    } else if (delay !== undefined) {
      await vi.advanceTimersByTimeAsync(delay);
    } else if (event.type.startsWith('doc.') || event.type === 'connection.restored') {
      actor.send(event as DocumentEvent);
    } else {
      backend.emit(event as OpStreamEvent);
    }
    await flush();
  }
  return actor;
}

const leafValue = (path: string[]): StateValue => (path.length === 1 ? (path[0] as string) : { [path[0] as string]: leafValue(path.slice(1)) });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('document machine paths', () => {
  const paths: StatePath<Snapshot, DocumentEvent>[] = getShortestPaths(documentMachine, traversal);

  it('reaches every state node by some path', () => {
    const unreached = getStateNodes(documentMachine.root)
      .filter((node) => node.path.length > 0)
      .filter((node) => !paths.some((p) => p.state.matches(leafValue(node.path) as never)))
      .map((node) => node.path.join('.'));
    expect(unreached).toEqual([]);
  });

  it.each(paths.map((p) => [p.steps.map((s) => s.event.type).join(' → ') || '(initial)', p] as const))('replays %s', async (_name, path) => {
    const actor = await replay(path.steps.map((s) => s.event));
    expect(key(actor.getSnapshot())).toBe(key(path.state));
    actor.stop();
  });

  it('takes every edge of the graph on the running machine', async () => {
    const adjacency: AdjacencyMap<Snapshot, DocumentEvent> = getAdjacencyMap(documentMachine, traversal);
    const pathTo = new Map(paths.map((p) => [key(p.state), p]));
    let edges = 0;
    for (const [vertex, value] of Object.entries(adjacency) as [string, AdjacencyValue<Snapshot, DocumentEvent>][]) {
      const prefix = pathTo.get(vertex);
      expect(prefix, `a path to ${vertex}`).toBeDefined();
      for (const edge of Object.values(value.transitions)) {
        const actor = await replay([...(prefix?.steps ?? []).map((s) => s.event), edge.event]);
        expect(key(actor.getSnapshot()), `${vertex} --${edge.event.type}-->`).toBe(key(edge.state));
        actor.stop();
        edges += 1;
      }
    }
    expect(edges).toBeGreaterThan(40);
  });
});
