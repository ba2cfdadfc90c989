import { fromEventObservable, fromPromise } from 'xstate';
import { machineListMachine, type NewMachine } from '../../machines/room/machine-list.machine.ts';
import { commentCountsMachine } from '../../machines/room/comment-counts.machine.ts';
import type { CommentCountsPort } from '../lib/ports/comment-counts.ts';
import type { DocumentPort, MachineListEvent, MachineSummary, Result } from '../lib/ports/document.ts';

/** Creates machines one after another; the first failure stops and is the answer. */
async function createAll(
  port: DocumentPort,
  projectId: string,
  machines: NewMachine[],
): Promise<Result<MachineSummary[]>> {
  const created: MachineSummary[] = [];
  for (const { name, definition } of machines) {
    const result = await port.createMachine({ projectId, name, definition });
    if (!result.ok) return result;
    const { definition: _omitted, ...summary } = result.value;
    created.push(summary);
  }
  return { ok: true, value: created };
}

/** The unread comment counts machine over its port. */
export function commentCountsLogic(port: CommentCountsPort) {
  return commentCountsMachine.provide({
    actors: {
      moves: fromEventObservable(({ input }: { input: { projectId: string } }) => port.moves$(input.projectId)),
      loadCounts: fromPromise(({ input }: { input: { projectId: string } }) => port.counts(input.projectId)),
    },
  });
}

export function machineListLogic(port: DocumentPort, counts: CommentCountsPort) {
  return machineListMachine.provide({
    actors: {
      commentCounts: commentCountsLogic(counts),
      listEvents: fromEventObservable<MachineListEvent, { projectId: string }>(({ input }) =>
        port.machineListEvents$(input.projectId),
      ),
      loadMachines: fromPromise<Result<MachineSummary[]>, { projectId: string }>(({ input }) =>
        port.listMachines(input.projectId),
      ),
      createMachines: fromPromise<Result<MachineSummary[]>, { projectId: string; machines: NewMachine[] }>(
        ({ input }) => createAll(port, input.projectId, input.machines),
      ),
      renameMachine: fromPromise<Result<MachineSummary>, { machineId: string; name: string }>(({ input }) =>
        port.renameMachine(input.machineId, input.name),
      ),
      deleteMachine: fromPromise<Result<string>, { machineId: string }>(async ({ input }) => {
        const result = await port.deleteMachine(input.machineId);
        return result.ok ? { ok: true, value: input.machineId } : result;
      }),
    },
  });
}
export type MachineListLogic = ReturnType<typeof machineListLogic>;
