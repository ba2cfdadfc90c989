import { Subject } from 'rxjs';
import { fromCallback, fromEventObservable } from 'xstate';
import type { QueueCommand } from '../../machines/open-machine/document.machine.ts';
import { checkpoint, headOf, opsSince, serverAppend, type ServerDoc } from '../../src/lib/collab/server-model.ts';
import type { CommittedOp, OpModel, QueueSnapshot } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type {
  CommitRequest,
  CommitResult,
  LoadedMachine,
  OpStreamEvent,
  Result,
} from '../../src/lib/ports/document.ts';
import { emptyDefinition } from '../adapters/machines-fixtures.ts';
import { heldRequests } from './held-requests.ts';

/**
 * Fakes for the document machine: a small op model over the real definition type
 * (machine renames, state renames and descriptions: enough to collide; the last two
 * agree with the real model on the root, which the adapter tests' checkpoints use), and an adapter whose requests stay open until the
 * test settles them, either with an explicit output or by asking the in-memory server
 * (commit_machine_ops' append semantics, src/lib/collab/server-model.ts) for its answer.
 * `server()` shows the log and its replay (what a checkpoint at the head would hold).
 */

export const renameModel: OpModel<MachineDefinition, Op> = {
  apply(def, op) {
    if (op.type === 'machine.update' && op.changes.name !== undefined) return { ...def, name: op.changes.name };
    if (op.type === 'state.rename') {
      const state = def.states[op.id];
      if (!state) throw new Error(`no state ${op.id}`);
      return { ...def, states: { ...def.states, [op.id]: { ...state, key: op.key } } };
    }
    if (op.type === 'state.update' && Object.keys(op.changes).join() === 'description') {
      const state = def.states[op.id];
      if (!state) throw new Error(`no state ${op.id}`);
      return { ...def, states: { ...def.states, [op.id]: { ...state, description: op.changes.description ?? null } } };
    }
    throw new Error(`unsupported op ${op.type}`);
  },
  invert(before, op) {
    if (op.type === 'state.rename') return [{ type: 'state.rename', id: op.id, key: before.states[op.id]?.key ?? '' }];
    if (op.type === 'state.update')
      return [{ type: 'state.update', id: op.id, changes: { description: before.states[op.id]?.description ?? null } }];
    return [{ type: 'machine.update', changes: { name: before.name } }];
  },
};

export const rename = (name: string): Op => ({ type: 'machine.update', changes: { name } });

type RequestName = 'loadQueue' | 'loadMachine' | 'commitOps' | 'fetchOps';

export const MACHINE_ID = 'm-1';

export function fakeDocumentBackend(
  initial = emptyDefinition('door'),
  model: OpModel<MachineDefinition, Op> = renameModel,
) {
  let server: ServerDoc<MachineDefinition, Op> = { doc: initial, checkpointSeq: 0, log: [] };
  const stream = new Subject<OpStreamEvent>();
  const stored = new Map<string, QueueSnapshot<MachineDefinition, Op> | null>();
  const { request, take, calls, isOpen, settle, fail } = heldRequests<RequestName>(flush);
  let batches = 0;

  // The checkpoint as stored (not moved by appends) and the log after it.
  const record = (): LoadedMachine => ({
    id: MACHINE_ID,
    projectId: 'p-1',
    name: 'door',
    version: server.checkpointSeq,
    createdBy: null,
    createdAt: '',
    updatedAt: '',
    definition: server.doc,
    tail: opsSince(server, server.checkpointSeq),
  });

  /** What the in-memory server answers to the open request. */
  const answer = (name: RequestName, input: unknown): unknown => {
    switch (name) {
      case 'loadQueue':
        return stored.get(MACHINE_ID) ?? null;
      case 'loadMachine':
        return { ok: true, value: record() } satisfies Result<LoadedMachine>;
      case 'fetchOps':
        return { ok: true, value: opsSince(server, (input as { after: number }).after) } satisfies Result<
          CommittedOp<Op>[]
        >;
      case 'commitOps': {
        const r = input as CommitRequest;
        const result = serverAppend(server, { clientId: r.clientId, batchId: r.batchId, ops: r.ops });
        server = result.server;
        return { ok: true, receipt: result.answer.receipt } satisfies CommitResult;
      }
    }
  };

  return {
    actors: {
      loadQueue: request<QueueSnapshot<MachineDefinition, Op> | null, { machineId: string }>('loadQueue'),
      loadMachine: request<Result<LoadedMachine>, { machineId: string }>('loadMachine'),
      commitOps: request<CommitResult, CommitRequest>('commitOps'),
      fetchOps: request<Result<CommittedOp<Op>[]>, { machineId: string; after: number }>('fetchOps'),
      opEvents: fromEventObservable<OpStreamEvent, { machineId: string }>(() => stream),
      queueStore: fromCallback<QueueCommand, { machineId: string }>(({ receive, input }) => {
        receive((command) => stored.set(input.machineId, command.snapshot));
      }),
    },
    calls,
    stored,
    /** The log, its head and its replay. */
    server: () => ({ log: server.log, version: headOf(server), doc: checkpoint(model, server).doc }),
    /** Trusted code moves the checkpoint to the head. */
    checkpoint: () => {
      server = checkpoint(model, server);
    },
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
    /** Someone else appends `ops` (not delivered on the stream unless the test emits it). */
    commitFromElsewhere(ops: Op[]): CommittedOp<Op>[] {
      const head = headOf(server);
      server = serverAppend(server, { clientId: 'other', batchId: `other-${++batches}`, ops }).server;
      return opsSince(server, head);
    },
  };
}

/** Lets promise callbacks run (works under fake timers: no setTimeout). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
