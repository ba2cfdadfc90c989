import { fromEventObservable, fromPromise } from 'xstate';
import { simulationMachine } from '../../machines/open-machine/simulation.machine.ts';
import type { JsonObject } from '../lib/model/types.ts';
import type { SendRequest, SimulationPort } from '../lib/ports/simulation.ts';
import type { GuardValues } from '../lib/simulation/types.ts';

/** The simulation machine's actors over the simulation port. */
export function simulationActors(port: SimulationPort) {
  return {
    simulationEvents: fromEventObservable(({ input }: { input: { machineId: string } }) =>
      port.simulations$(input.machineId),
    ),
    logEvents: fromEventObservable(({ input }: { input: { simulationId: string } }) =>
      port.events$(input.simulationId),
    ),
    listSimulations: fromPromise(({ input }: { input: { machineId: string } }) => port.list(input.machineId)),
    startSimulation: fromPromise(
      ({ input }: { input: { machineId: string; context: JsonObject | null; guards: GuardValues } }) =>
        port.start(input),
    ),
    loadLog: fromPromise(({ input }: { input: { simulationId: string; after: number } }) =>
      port.eventsSince(input.simulationId, input.after),
    ),
    sendEvent: fromPromise(({ input }: { input: SendRequest }) => port.send(input)),
    forkSimulation: fromPromise(({ input }: { input: { simulationId: string; uptoSeq: number; latest: boolean } }) =>
      port.fork(input),
    ),
  };
}

export const simulationLogic = (port: SimulationPort) => simulationMachine.provide({ actors: simulationActors(port) });
export type SimulationLogic = ReturnType<typeof simulationLogic>;
