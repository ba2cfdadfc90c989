import { Subject } from 'rxjs';
import { fromCallback, fromEventObservable } from 'xstate';
import type { QueueCommand } from '../../machines/document.machine.ts';
import { opsSince, serverCommit, type ServerDoc } from '../../src/lib/collab/server-model.ts';
import type { CommittedOp, OpModel, QueueSnapshot } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { CommitRequest, CommitResult, MachineRecord, OpStreamEvent, Result } from '../../src/lib/ports/document.ts';
import { emptyDefinition } from '../adapters/machines-fixtures.ts';
import { heldRequests } from './held-requests.ts';

/**
 * Fakes for the document machine: a small op model over the real definition type
 * (renames only, enough to collide), and an adapter whose requests stay open until the
 * test settles them, either with an explicit output or by asking the in-memory server
 * (commit_machine_ops' semantics, src/lib/collab/server-model.ts) for its answer.
 */

export const renameModel: OpModel<MachineDefinition, Op> = {
  apply(def, op) {
    if (op.type === 'machine.update' && op.changes.name !== undefined) return { ...def, name: op.changes.name };
    if (op.type === 'state.rename') {
      const state = def.states[op.id];
      if (!state) throw new Error(`no state ${op.id}`);
      return { ...def, states: { ...def.states, [op.id]: { ...state, key: op.key } } };
    }
    throw new Error(`unsupported op ${op.type}`);
  },
  invert(before, op) {
    if (op.type === 'state.rename') return [{ type: 'state.rename', id: op.id, key: before.states[op.id]?.key ?? '' }];
    return [{ type: 'machine.update', changes: { name: before.name } }];
  },
};

export const rename = (name: string): Op => ({ type: 'machine.update', changes: { name } });

type RequestName = 'loadQueue' | 'loadMachine' | 'commitOps' | 'fetchOps';

export const MACHINE_ID = 'm-1';

export function fakeDocumentBackend(initial = emptyDefinition('door')) {
  let server: ServerDoc<MachineDefinition, Op> = { doc: initial, version: 0, log: [] };
  const stream = new Subject<OpStreamEvent>();
  const stored = new Map<string, QueueSnapshot<MachineDefinition, Op> | null>();
  const { request, take, calls, isOpen, settle, fail } = heldRequests<RequestName>(flush);
  let batches = 0;

  const record = (): MachineRecord => ({
    id: MACHINE_ID, projectId: 'p-1', name: 'door', version: server.version, createdBy: null, createdAt: '', updatedAt: '', definition: server.doc,
  });

  /** What the in-memory server answers to the open request. */
  const answer = (name: RequestName, input: unknown): unknown => {
    switch (name) {
      case 'loadQueue':
        return stored.get(MACHINE_ID) ?? null;
      case 'loadMachine':
        return { ok: true, value: record() } satisfies Result<MachineRecord>;
      case 'fetchOps':
        return { ok: true, value: opsSince(server, (input as { after: number }).after) } satisfies Result<CommittedOp<Op>[]>;
      case 'commitOps': {
        const r = input as CommitRequest;
        const result = serverCommit(server, { base: r.base, clientId: r.clientId, batchId: r.batchId, ops: r.ops, doc: r.definition });
        server = result.server;
        if (result.answer.ok) return { ok: true, receipt: result.answer.receipt } satisfies CommitResult;
        return { ok: false, error: { code: 'conflict', message: 'Someone else edited this machine first.' }, currentVersion: result.answer.currentVersion } satisfies CommitResult;
      }
    }
  };

  return {
    actors: {
      loadQueue: request<QueueSnapshot<MachineDefinition, Op> | null, { machineId: string }>('loadQueue'),
      loadMachine: request<Result<MachineRecord>, { machineId: string }>('loadMachine'),
      commitOps: request<CommitResult, CommitRequest>('commitOps'),
      fetchOps: request<Result<CommittedOp<Op>[]>, { machineId: string; after: number }>('fetchOps'),
      opEvents: fromEventObservable<OpStreamEvent, { machineId: string }>(() => stream),
      queueStore: fromCallback<QueueCommand, { machineId: string }>(({ receive, input }) => {
        receive((command) => stored.set(input.machineId, command.snapshot));
      }),
    },
    calls,
    stored,
    server: () => server,
    isOpen,
    emit: (event: OpStreamEvent) => stream.next(event),
    /** Settles the open request with an explicit output. */
    settle,
    fail,
    /** Settles the open request with the in-memory server's answer. */
    async serve(name: RequestName) {
      const open = take(name);
      open.resolve(answer(name, open.input));
      await flush();
    },
    /** Someone else commits `ops` (not delivered on the stream unless the test emits it). */
    commitFromElsewhere(ops: Op[]): CommittedOp<Op>[] {
      const base = server.version;
      let doc = server.doc;
      for (const op of ops) doc = renameModel.apply(doc, op);
      const result = serverCommit(server, { base, clientId: 'other', batchId: `other-${++batches}`, ops, doc });
      server = result.server;
      return opsSince(server, base);
    },
  };
}

/** Lets promise callbacks run (works under fake timers: no setTimeout). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
