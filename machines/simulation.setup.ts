import type { AnyActorRef } from 'xstate';
import type { JsonObject } from '../src/lib/model/types.ts';
import type { ReplayLook } from '../src/lib/ports/canvas-presence.ts';
import type { SendRequest, SimResult, SimulationRecord } from '../src/lib/ports/simulation.ts';
import {
  emptyLog,
  mergeEntries,
  readyEntries,
  traceOf,
  type GuardValues,
  type KnownLog,
  type SimLogEntry,
  type SimSetup,
  type Trace,
} from '../src/lib/simulation/index.ts';

/** The simulation machine's intents, input and context, and the pure steps its actions take. */

export type SimulationIntent =
  | { type: 'sim.start'; context: JsonObject | null }
  | { type: 'sim.send'; eventType: string; payload: JsonObject }
  | { type: 'sim.advanceTime' }
  | { type: 'sim.setGuard'; name: string; value: boolean }
  | { type: 'sim.stepBack' }
  | { type: 'sim.stepForward' }
  | { type: 'sim.scrub'; step: number }
  | { type: 'sim.play' }
  | { type: 'sim.pause' }
  | { type: 'sim.fork' }
  | { type: 'sim.rerun' }
  | { type: 'sim.retry' }
  | { type: 'sim.dismissError' }
  /** The person's membership changed (a guest watches; members send). */
  | { type: 'sim.canSendChanged'; canSend: boolean }
  /** The replay step of the person followed (null: following no one, or they have no simulation open). */
  | { type: 'sim.followed'; replay: ReplayLook | null };

/** Who is told that this person chose a replay step themselves: the open machine, which ends follow mode. */
export type SimulationHost = AnyActorRef;

export interface SimulationInput {
  machineId: string;
  canSend: boolean;
  host?: SimulationHost | null;
}

export interface SimulationContext {
  machineId: string;
  canSend: boolean;
  host: SimulationHost | null;
  /** The replay step of the person followed, shown whenever it is of the simulation open. */
  followed: ReplayLook | null;
  simulation: SimulationRecord | null;
  /** What the open simulation replays from; one object per simulation (traces are cached by it). */
  setup: SimSetup | null;
  log: KnownLog;
  trace: Trace | null;
  /** The step shown while replaying; null follows the live end. */
  position: number | null;
  /** This person's guard switches, sent with each event. */
  guards: GuardValues;
  outbox: SendRequest[];
  error: string | null;
}

export const lastStep = (c: SimulationContext): number => c.log.ready;

/** The step to show for a followed look: theirs if it is of this simulation. */
const followedStep = (simulation: SimulationRecord, followed: ReplayLook | null): number | null =>
  followed?.simulationId === simulation.id ? followed.position : null;

export function opened(simulation: SimulationRecord, followed: ReplayLook | null): Partial<SimulationContext> {
  const simSetup: SimSetup = {
    definition: simulation.definition,
    context: simulation.context,
    guards: simulation.guards,
  };
  return {
    simulation,
    setup: simSetup,
    log: emptyLog,
    trace: traceOf(simSetup, []),
    position: followedStep(simulation, followed),
    guards: { ...simulation.guards },
    outbox: [],
  };
}

export function received(c: SimulationContext, entries: SimLogEntry[]): Partial<SimulationContext> {
  if (!c.setup) return {};
  const log = mergeEntries(c.log, entries);
  return log === c.log ? {} : { log, trace: traceOf(c.setup, readyEntries(log), c.trace) };
}

export const failure = (output: SimResult<unknown>): string | null => (output.ok ? null : output.error.message);

/** Why this person's send was not sent, in words. */
export function refusal(c: SimulationContext): string {
  if (!c.canSend) return 'You are watching: members send events.';
  if (!c.simulation) return 'No simulation is running: press Simulate first.';
  return 'This simulation has ended: fork it to go on.';
}
