import { useCallback, useEffect } from 'react';
import type { MachineListIntent } from '../../../machines/room/machine-list.machine.ts';
import type { MachineSummary } from '../../lib/ports/document.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { useMachineListRef } from '../room/room-context.ts';

/**
 * The open project's machine list, a child of the room (so the list and an open
 * machine's title read the same live data), through named hooks.
 */

const sameList = (a: MachineSummary[], b: MachineSummary[]): boolean =>
  a.length === b.length &&
  a.every(
    (m, i) =>
      m.id === b[i]?.id &&
      m.name === b[i]?.name &&
      m.version === b[i]?.version &&
      m.updatedAt === b[i]?.updatedAt &&
      m.sketch === b[i]?.sketch,
  );

const NONE: MachineSummary[] = [];

export const useMachines = (): MachineSummary[] =>
  useChildSelector(useMachineListRef(), (s) => s.context.machines, NONE, sameList);

export const useMachineName = (id: string): string | null =>
  useChildSelector(useMachineListRef(), (s) => s.context.machines.find((m) => m.id === id)?.name ?? null, null);

export interface MachineListStatus {
  loading: boolean;
  failed: boolean;
  busy: boolean;
  error: string | null;
}
const LOADING: MachineListStatus = { loading: true, failed: false, busy: false, error: null };

export const useMachineListStatus = (): MachineListStatus =>
  useChildSelector(
    useMachineListRef(),
    (s) => ({
      loading: s.hasTag('loading'),
      failed: s.hasTag('failed'),
      busy: s.hasTag('busy'),
      error: s.context.error,
    }),
    LOADING,
    (a, b) => a.loading === b.loading && a.failed === b.failed && a.busy === b.busy && a.error === b.error,
  );

export function useMachineListSend(): (intent: MachineListIntent) => void {
  const list = useMachineListRef();
  return useCallback((intent: MachineListIntent) => list?.send(intent), [list]);
}

/** Calls `onCreated` with the machines this person just created (to open a single new one). */
export function useOnMachinesCreated(onCreated: (machines: MachineSummary[]) => void): void {
  const list = useMachineListRef();
  useEffect(() => {
    const sub = list?.on('list.created', ({ machines }) => onCreated(machines));
    return () => sub?.unsubscribe();
  }, [list, onCreated]);
}
