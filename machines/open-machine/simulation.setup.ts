import { assertEvent, assign, enqueueActions, setup, type AnyActorRef } from 'xstate';
import type { JsonObject } from '../../src/lib/model/types.ts';
import type { ReplayLook } from '../../src/lib/ports/canvas-presence.ts';
import type {
  SendRequest,
  SimListStreamEvent,
  SimLogStreamEvent,
  SimResult,
  SimulationRecord,
} from '../../src/lib/ports/simulation.ts';
import {
  emptyLog,
  hasGap,
  mergeEntries,
  readyEntries,
  traceOf,
  type GuardValues,
  type KnownLog,
  type SimLogEntry,
  type SimSetup,
  type Trace,
} from '../../src/lib/simulation/index.ts';
import { sameLook } from './replay-follow.ts';
import { requestNotProvided, streamNotProvided } from '../shared.ts';

/**
 * The simulation machine's types (intents, input, context), the pure steps its actions take,
 * and its `setup` (actors, actions, guards, delays); its chart is simulation.machine.ts.
 */

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

/** The running simulation a listing holds, if any (`openSimulation`'s params). */
export const runningIn = ({ event }: { event: { output: SimResult<SimulationRecord[]> } }) => ({
  simulation: event.output.ok ? (event.output.value.find((s) => s.status === 'running') ?? null) : null,
});

/** Why this person's send was not sent, in words. */
export function refusal(c: SimulationContext): string {
  if (!c.canSend) return 'You are watching: members send events.';
  if (!c.simulation) return 'No simulation is running: press Simulate first.';
  return 'This simulation has ended: fork it to go on.';
}

export const simulationSetup = setup({
  types: {
    input: {} as SimulationInput,
    context: {} as SimulationContext,
    events: {} as SimulationIntent | SimLogStreamEvent | SimListStreamEvent,
    tags: {} as 'loading' | 'idle' | 'open' | 'live' | 'syncing' | 'sending' | 'playing' | 'busy',
  },
  actors: {
    simulationEvents: streamNotProvided<SimListStreamEvent, { machineId: string }>('simulation', 'simulationEvents'),
    logEvents: streamNotProvided<SimLogStreamEvent, { simulationId: string }>('simulation', 'logEvents'),
    listSimulations: requestNotProvided<SimResult<SimulationRecord[]>, { machineId: string }>(
      'simulation',
      'listSimulations',
    ),
    startSimulation: requestNotProvided<
      SimResult<SimulationRecord>,
      { machineId: string; context: JsonObject | null; guards: GuardValues }
    >('simulation', 'startSimulation'),
    loadLog: requestNotProvided<SimResult<SimLogEntry[]>, { simulationId: string; after: number }>(
      'simulation',
      'loadLog',
    ),
    sendEvent: requestNotProvided<SimResult<{ seq: number }>, SendRequest>('simulation', 'sendEvent'),
    forkSimulation: requestNotProvided<
      SimResult<SimulationRecord>,
      { simulationId: string; uptoSeq: number; latest: boolean }
    >('simulation', 'forkSimulation'),
  },
  actions: {
    openSimulation: assign(({ context }, params: { simulation: SimulationRecord | null }) =>
      params.simulation ? opened(params.simulation, context.followed) : {},
    ),
    /** Show the followed step if it is of this simulation (another one: once it opens here). */
    follow: assign(({ context, event }) => {
      assertEvent(event, 'sim.followed');
      const { replay } = event;
      return replay && context.simulation?.id === replay.simulationId
        ? { followed: replay, position: replay.position }
        : { followed: replay };
    }),
    /** This person chose a step (or sent): stop following, and tell the host so follow mode ends. */
    choose: enqueueActions(({ context, enqueue }) => {
      if (!context.followed) return;
      enqueue.assign({ followed: null });
      if (context.host) enqueue.sendTo(context.host, { type: 'machine.replayChosen' });
    }),
    updateSimulation: assign(({ context, event }) => {
      assertEvent(event, 'sims.updated');
      return context.simulation?.id === event.simulation.id
        ? { simulation: { ...context.simulation, status: event.simulation.status } }
        : {};
    }),
    receive: assign(({ context, event }) => {
      assertEvent(event, 'simlog.received');
      return received(context, event.entries);
    }),
    queue: assign(({ context, event }) => {
      assertEvent(event, ['sim.send', 'sim.advanceTime']);
      if (!context.simulation) return {};
      const base = { simulationId: context.simulation.id, payload: {}, guards: { ...context.guards } };
      const request: SendRequest =
        event.type === 'sim.send'
          ? { ...base, kind: 'event', type: event.eventType, payload: event.payload }
          : { ...base, kind: 'time', type: null };
      return { outbox: [...context.outbox, request], position: null };
    }),
    stepBack: assign(({ context }) => ({ position: Math.max(0, (context.position ?? lastStep(context)) - 1) })),
    stepForward: assign(({ context }) => {
      const next = (context.position ?? lastStep(context)) + 1;
      return { position: next >= lastStep(context) ? null : next };
    }),
    setError: assign((_, params: { error: string | null }) => ({ error: params.error })),
    /** A request answered no: its message. */
    showFailure: assign((_, result: SimResult<unknown>) => ({ error: failure(result) })),
    /** A started or forked simulation: open it. */
    openAnswered: assign(({ context }, result: SimResult<SimulationRecord>) =>
      result.ok ? opened(result.value, context.followed) : {},
    ),
    setGuard: assign(({ context, event }) => {
      assertEvent(event, 'sim.setGuard');
      return { guards: { ...context.guards, [event.name]: event.value } };
    }),
    setCanSend: assign(({ event }) => {
      assertEvent(event, 'sim.canSendChanged');
      return { canSend: event.canSend };
    }),
    receiveLog: assign(({ context }, result: SimResult<SimLogEntry[]>) =>
      result.ok ? received(context, result.value) : {},
    ),
    /** The request at the head of the outbox is answered (or failed): the next one goes. */
    dequeue: assign(({ context }) => ({ outbox: context.outbox.slice(1) })),
    scrub: assign(({ context, event }) => {
      assertEvent(event, 'sim.scrub');
      return { position: event.step >= lastStep(context) ? null : Math.max(0, Math.floor(event.step)) };
    }),
    /** Play from the step shown, or from the start at the live end. */
    playFromShown: assign(({ context }) => ({ position: context.position ?? 0 })),
  },
  guards: {
    canSend: ({ context }) => context.canSend && context.simulation !== null && context.simulation.status === 'running',
    canStart: ({ context }) => context.canSend,
    isOtherSimulation: ({ context, event }) => {
      assertEvent(event, 'sims.started');
      return context.simulation?.id !== event.simulation.id;
    },
    refused: (_, result: SimResult<unknown>) => !result.ok,
    hasGap: ({ context }) => hasGap(context.log),
    outboxWaiting: ({ context }) => context.outbox.length > 0,
    replaying: ({ context }) => context.position !== null,
    hasSteps: ({ context }) => lastStep(context) > 0,
    atLiveEnd: ({ context }) => context.position === null,
    /** The list holds a running simulation (the newest first), which opens at once. */
    runningListed: (_, result: SimResult<SimulationRecord[]>) =>
      result.ok && result.value.some((s) => s.status === 'running'),
    followedMoved: ({ context, event }) => event.type === 'sim.followed' && !sameLook(context.followed, event.replay),
  },
  delays: { playStep: 600, retryDelay: 2000 },
});
