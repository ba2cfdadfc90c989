import { fromEventObservable, fromPromise } from 'xstate';
import { versionsMachine } from '../../machines/open-machine/versions.machine.ts';
import type { VersionsPort } from '../lib/ports/versions.ts';
import { layoutLogic, type LayoutEngine } from './layout.ts';

/** The versions machine over the versions port; what it shows is laid out with its own engine from `startLayout`. */
export function versionsLogic(port: VersionsPort, startLayout: () => LayoutEngine) {
  return versionsMachine.provide({
    actors: {
      changes: fromEventObservable(({ input }: { input: { machineId: string } }) => port.changes$(input.machineId)),
      listVersions: fromPromise(({ input }: { input: { machineId: string } }) => port.list(input.machineId)),
      saveVersion: fromPromise(({ input }: { input: { machineId: string; name: string; seq: number } }) =>
        port.save(input),
      ),
      readDefinitions: fromPromise(({ input }: { input: { machineId: string; seqs: number[] } }) =>
        port.definitionsAt(input.machineId, input.seqs),
      ),
      viewLayout: layoutLogic(startLayout),
    },
  });
}
export type VersionsLogic = ReturnType<typeof versionsLogic>;
