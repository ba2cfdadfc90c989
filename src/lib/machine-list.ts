import type { MachineSummary } from './ports/document.ts';

/**
 * A project's machine list, merged from reads and live changes: newest edit first; a
 * row older than the one known (a late event, by version) never replaces it.
 */

export type MachineListChange =
  { type: 'machines.upserted'; machine: MachineSummary } | { type: 'machines.deleted'; machineId: string };

const byRecent = (a: MachineSummary, b: MachineSummary): number =>
  b.updatedAt.localeCompare(a.updatedAt) || a.name.localeCompare(b.name);

export function upsertMachine(list: MachineSummary[], machine: MachineSummary): MachineSummary[] {
  const known = list.find((m) => m.id === machine.id);
  if (known && known.version > machine.version) return list;
  // A row read without its definition (a rename's answer) keeps the picture already known,
  // and a row from a live change keeps who last changed it (rows do not carry that).
  const sameVersion = known?.version === machine.version;
  const kept = {
    ...machine,
    ...(machine.sketch === undefined && sameVersion ? { sketch: known.sketch } : {}),
    ...(machine.lastChange === undefined && known?.lastChange !== undefined ? { lastChange: known.lastChange } : {}),
  };
  return [...list.filter((m) => m.id !== machine.id), kept].sort(byRecent);
}

export const removeMachine = (list: MachineSummary[], machineId: string): MachineSummary[] =>
  list.filter((m) => m.id !== machineId);

export function applyMachineChange(list: MachineSummary[], change: MachineListChange): MachineSummary[] {
  return change.type === 'machines.upserted'
    ? upsertMachine(list, change.machine)
    : removeMachine(list, change.machineId);
}

/** A read's answer with the changes streamed while it was in flight laid on top (its answer may predate them). */
export const mergeRead = (read: MachineSummary[], since: MachineListChange[]): MachineSummary[] =>
  since.reduce(applyMachineChange, [...read].sort(byRecent));
