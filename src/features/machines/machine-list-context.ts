import { createActorContext } from '@xstate/react';
import { machineListMachine } from '../../../machines/machine-list.machine.ts';
import type { MachineSummary } from '../../lib/ports/document.ts';

/**
 * The open project's machine list for the React tree, provided by the room so the list
 * and an open machine's title read the same live data.
 */
export const MachineListContext = createActorContext(machineListMachine);

const sameList = (a: MachineSummary[], b: MachineSummary[]): boolean =>
  a.length === b.length && a.every((m, i) => m.id === b[i]?.id && m.name === b[i]?.name && m.version === b[i]?.version && m.updatedAt === b[i]?.updatedAt);

export const useMachines = (): MachineSummary[] => MachineListContext.useSelector((s) => s.context.machines, sameList);
export const useMachineName = (id: string): string | null => MachineListContext.useSelector((s) => s.context.machines.find((m) => m.id === id)?.name ?? null);
export const useMachineListStatus = () =>
  MachineListContext.useSelector((s) => ({ loading: s.hasTag('loading'), failed: s.hasTag('failed'), busy: s.hasTag('busy'), error: s.context.error }), (a, b) =>
    a.loading === b.loading && a.failed === b.failed && a.busy === b.busy && a.error === b.error,
  );
