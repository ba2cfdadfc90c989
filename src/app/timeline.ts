import { fromEventObservable, fromPromise } from 'xstate';
import { timelineMachine } from '../../machines/open-machine/timeline.machine.ts';
import type { TimelinePort } from '../lib/ports/timeline.ts';
import { layoutLogic, type LayoutEngine } from './layout.ts';

/** The timeline machine over the timeline port; time travel lays out with its own engine from `startLayout`. */
export function timelineLogic(port: TimelinePort, startLayout: () => LayoutEngine) {
  return timelineMachine.provide({
    actors: {
      readOps: fromPromise(({ input }: { input: { machineId: string; after: number } }) =>
        port.opsSince(input.machineId, input.after),
      ),
      readSimulations: fromPromise(({ input }: { input: { machineId: string } }) => port.simulations(input.machineId)),
      facts: fromEventObservable(({ input }: { input: { machineId: string } }) => port.facts$(input.machineId)),
      previewLayout: layoutLogic(startLayout),
    },
  });
}
export type TimelineLogic = ReturnType<typeof timelineLogic>;
