import { Subject } from 'rxjs';
import { createActor, createMachine, fromCallback, fromEventObservable, type AnyEventObject } from 'xstate';
import type { layoutMachine } from '../../machines/open-machine/layout.machine.ts';
import { versionsMachine, type VersionsEditor } from '../../machines/open-machine/versions.machine.ts';
import { renameOps } from '../../src/lib/canvas-ops/index.ts';
import { applyOps, counterIds, importXState, type MachineDefinition } from '../../src/lib/model/index.ts';
import type { SavedVersion, VersionsFact, VersionsResult } from '../../src/lib/ports/versions.ts';
import { heldRequests } from './held-requests.ts';

/**
 * A fake versions port: reads and saves held until the test settles them, facts pushed
 * on a subject, a view layout and an editor that record what they were told.
 */

export type VersionsRequest = 'listVersions' | 'saveVersion' | 'readDefinitions';

export const settle = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};
export const ok = <T>(value: T): VersionsResult<T> => ({ ok: true, value });
export const refused = (code: string, message: string): VersionsResult<never> => ({
  ok: false,
  error: { code, message },
});

export const door = importXState(
  { id: 'door', initial: 'idle', states: { idle: { on: { GO: 'busy' } }, busy: {} } },
  { ids: counterIds('d') },
);
export const idleId = Object.values(door.states).find((s) => s.key === 'idle')!.id;
export const renamed = applyOps(door, renameOps(door, idleId, 'waiting'));

export const version = (id: string, name: string, seq: number): SavedVersion => ({
  id,
  machineId: 'm-1',
  name,
  seq,
  createdBy: 'u-ada',
  createdAt: new Date(Date.UTC(2026, 10, 27, 12, 0, seq)).toISOString(),
});

export function start() {
  const facts = new Subject<VersionsFact>();
  const held = heldRequests<VersionsRequest>(settle);
  const laidOut: AnyEventObject[] = [];
  const edited: AnyEventObject[] = [];
  const logic = versionsMachine.provide({
    actors: {
      changes: fromEventObservable<VersionsFact, { machineId: string }>(() => facts.asObservable()),
      listVersions: held.request<VersionsResult<SavedVersion[]>, { machineId: string }>('listVersions'),
      saveVersion: held.request<VersionsResult<SavedVersion>, { machineId: string; name: string; seq: number }>(
        'saveVersion',
      ),
      readDefinitions: held.request<VersionsResult<MachineDefinition[]>, { machineId: string; seqs: number[] }>(
        'readDefinitions',
      ),
      viewLayout: createMachine({
        on: { '*': { actions: ({ event }) => laidOut.push(event) } },
      }) as unknown as typeof layoutMachine,
    },
  });
  const editor = createActor(
    fromCallback<AnyEventObject>(({ receive }) => receive((e) => edited.push(e))),
  ).start() as unknown as VersionsEditor;
  const actor = createActor(logic, { input: { machineId: 'm-1', editor } }).start();
  return { actor, held, facts, laidOut, edited };
}
