import { throwError } from 'rxjs';
import { assertEvent, assign, enqueueActions, fromEventObservable, fromPromise, setup } from 'xstate';
import type {
  SendRequest,
  SimListStreamEvent,
  SimLogStreamEvent,
  SimResult,
  SimulationRecord,
} from '../src/lib/ports/simulation.ts';
import type { JsonObject } from '../src/lib/model/types.ts';
import { emptyLog, hasGap, type GuardValues, type SimLogEntry } from '../src/lib/simulation/index.ts';
import { sameLook } from './replay-follow.ts';
import { notProvided } from './shared.ts';
import {
  failure,
  lastStep,
  opened,
  received,
  refusal,
  type SimulationContext,
  type SimulationInput,
  type SimulationIntent,
} from './simulation.setup.ts';

export type { SimulationContext, SimulationHost, SimulationInput, SimulationIntent } from './simulation.setup.ts';

/**
 * The shared simulation of one machine. On open it shows the newest running simulation
 * (a late joiner lands where everyone is), and follows any simulation someone starts.
 * An open simulation's log arrives from `logEvents` (postgres changes) and, on open, on
 * every resubscribe and whenever a gap shows, from `loadLog`; the state shown is the
 * replay of the gapless log (src/lib/simulation), so every client agrees. Sends queue in
 * an outbox, one request at a time, in the order made; the server orders them among
 * everyone's. Replay moves a position over the trace (`null`: follow the live end).
 * Following someone (`sim.followed`, from the open machine) shows their replay step, now
 * and whenever they move it; choosing a step oneself (or sending) stops following, and the
 * `host` (the open machine) is told `machine.replayChosen` so the whole follow mode ends.
 */

export const simulationMachine = setup({
  types: {
    input: {} as SimulationInput,
    context: {} as SimulationContext,
    events: {} as SimulationIntent | SimLogStreamEvent | SimListStreamEvent,
    tags: {} as 'loading' | 'idle' | 'open' | 'live' | 'syncing' | 'sending' | 'playing' | 'busy',
  },
  actors: {
    simulationEvents: fromEventObservable<SimListStreamEvent, { machineId: string }>(() =>
      throwError(() => notProvided('simulation', 'simulationEvents')),
    ),
    logEvents: fromEventObservable<SimLogStreamEvent, { simulationId: string }>(() =>
      throwError(() => notProvided('simulation', 'logEvents')),
    ),
    listSimulations: fromPromise<SimResult<SimulationRecord[]>, { machineId: string }>(() =>
      Promise.reject(notProvided('simulation', 'listSimulations')),
    ),
    startSimulation: fromPromise<
      SimResult<SimulationRecord>,
      { machineId: string; context: JsonObject | null; guards: GuardValues }
    >(() => Promise.reject(notProvided('simulation', 'startSimulation'))),
    loadLog: fromPromise<SimResult<SimLogEntry[]>, { simulationId: string; after: number }>(() =>
      Promise.reject(notProvided('simulation', 'loadLog')),
    ),
    sendEvent: fromPromise<SimResult<{ seq: number }>, SendRequest>(() =>
      Promise.reject(notProvided('simulation', 'sendEvent')),
    ),
    forkSimulation: fromPromise<
      SimResult<SimulationRecord>,
      { simulationId: string; uptoSeq: number; latest: boolean }
    >(() => Promise.reject(notProvided('simulation', 'forkSimulation'))),
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
    succeeded: ({ event }) => (event as unknown as { output: SimResult<unknown> }).output.ok,
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
}).createMachine({
  id: 'simulation',
  context: ({ input }) => ({
    machineId: input.machineId,
    canSend: input.canSend,
    host: input.host ?? null,
    followed: null,
    simulation: null,
    setup: null,
    log: emptyLog,
    trace: null,
    position: null,
    guards: {},
    outbox: [],
    error: null,
  }),
  invoke: { src: 'simulationEvents', input: ({ context }) => ({ machineId: context.machineId }) },
  on: {
    'sims.started': {
      guard: 'isOtherSimulation',
      target: '.open',
      reenter: true,
      actions: { type: 'openSimulation', params: ({ event }) => ({ simulation: event.simulation }) },
    },
    'sims.updated': { actions: 'updateSimulation' },
    'sim.setGuard': {
      actions: 'setGuard',
    },
    'sim.start': { guard: 'canStart', target: '.starting' },
    // A send the open simulation's outbox refused (a guest, no simulation, an ended one):
    // nothing is sent, and the person is told why (the diagram's labels send too).
    'sim.send': { actions: { type: 'setError', params: ({ context }) => ({ error: refusal(context) }) } },
    'sim.advanceTime': { actions: { type: 'setError', params: ({ context }) => ({ error: refusal(context) }) } },
    'sim.dismissError': { actions: { type: 'setError', params: { error: null } } },
    'sim.canSendChanged': { actions: 'setCanSend' },
    'sim.followed': { guard: 'followedMoved', actions: 'follow' },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        src: 'listSimulations',
        input: ({ context }) => ({ machineId: context.machineId }),
        onDone: [
          {
            guard: { type: 'runningListed', params: ({ event }) => event.output },
            target: 'open',
            actions: {
              type: 'openSimulation',
              params: ({ event }) => ({
                simulation: event.output.ok ? (event.output.value.find((s) => s.status === 'running') ?? null) : null,
              }),
            },
          },
          { target: 'idle', actions: { type: 'setError', params: ({ event }) => ({ error: failure(event.output) }) } },
        ],
        onError: {
          target: 'idle',
          actions: { type: 'setError', params: { error: "Couldn't load this machine's simulations." } },
        },
      },
    },
    idle: { tags: ['idle'] },
    starting: {
      tags: ['busy'],
      invoke: {
        src: 'startSimulation',
        input: ({ context, event }) => {
          assertEvent(event, 'sim.start');
          return { machineId: context.machineId, context: event.context, guards: context.guards };
        },
        onDone: [
          {
            guard: 'succeeded',
            target: 'open',
            actions: [
              {
                type: 'openSimulation',
                params: ({ event }) => ({ simulation: event.output.ok ? event.output.value : null }),
              },
              { type: 'setError', params: { error: null } },
            ],
          },
          { target: 'idle', actions: { type: 'setError', params: ({ event }) => ({ error: failure(event.output) }) } },
        ],
        onError: { target: 'idle', actions: { type: 'setError', params: { error: "Couldn't start the simulation." } } },
      },
    },
    forking: {
      tags: ['busy'],
      invoke: {
        src: 'forkSimulation',
        input: ({ context, event }) => ({
          simulationId: context.simulation?.id ?? '',
          uptoSeq: event.type === 'sim.rerun' ? lastStep(context) : (context.position ?? lastStep(context)),
          latest: event.type === 'sim.rerun',
        }),
        onDone: [
          {
            guard: 'succeeded',
            target: 'open',
            actions: {
              type: 'openSimulation',
              params: ({ event }) => ({ simulation: event.output.ok ? event.output.value : null }),
            },
          },
          { target: 'open', actions: { type: 'setError', params: ({ event }) => ({ error: failure(event.output) }) } },
        ],
        onError: { target: 'open', actions: { type: 'setError', params: { error: "Couldn't fork the simulation." } } },
      },
    },
    open: {
      tags: ['open'],
      type: 'parallel',
      invoke: { src: 'logEvents', input: ({ context }) => ({ simulationId: context.simulation?.id ?? '' }) },
      on: {
        'simlog.received': { actions: 'receive' },
        'sim.fork': { guard: 'canStart', target: 'forking' },
        'sim.rerun': { guard: 'canStart', target: 'forking' },
      },
      states: {
        sync: {
          initial: 'catchingUp',
          states: {
            catchingUp: {
              tags: ['syncing'],
              on: { 'simlog.subscribed': { target: 'catchingUp', reenter: true } },
              invoke: {
                src: 'loadLog',
                input: ({ context }) => ({ simulationId: context.simulation?.id ?? '', after: context.log.ready }),
                onDone: [
                  {
                    guard: 'succeeded',
                    target: 'live',
                    actions: { type: 'receiveLog', params: ({ event }) => event.output },
                  },
                  {
                    target: 'waiting',
                    actions: { type: 'setError', params: ({ event }) => ({ error: failure(event.output) }) },
                  },
                ],
                onError: {
                  target: 'waiting',
                  actions: { type: 'setError', params: { error: "Couldn't read the simulation log." } },
                },
              },
            },
            live: {
              tags: ['live'],
              always: { guard: 'hasGap', target: 'catchingUp' },
              on: { 'simlog.subscribed': 'catchingUp', 'simlog.lost': 'waiting' },
            },
            waiting: {
              tags: ['syncing'],
              after: { retryDelay: 'catchingUp' },
              on: { 'simlog.subscribed': 'catchingUp', 'sim.retry': 'catchingUp' },
            },
          },
        },
        outbox: {
          initial: 'idle',
          on: {
            'sim.send': { guard: 'canSend', actions: ['choose', 'queue'] },
            'sim.advanceTime': { guard: 'canSend', actions: ['choose', 'queue'] },
          },
          states: {
            idle: { always: { guard: 'outboxWaiting', target: 'sending' } },
            sending: {
              tags: ['sending'],
              invoke: {
                src: 'sendEvent',
                input: ({ context }) => context.outbox[0] as SendRequest,
                onDone: {
                  target: 'idle',
                  actions: ['dequeue', { type: 'setError', params: ({ event }) => ({ error: failure(event.output) }) }],
                },
                onError: {
                  target: 'idle',
                  actions: ['dequeue', { type: 'setError', params: { error: "Couldn't send the event." } }],
                },
              },
            },
          },
        },
        playback: {
          initial: 'paused',
          on: {
            'sim.stepBack': { guard: 'hasSteps', target: '.paused', actions: ['choose', 'stepBack'] },
            'sim.stepForward': { guard: 'replaying', target: '.paused', actions: ['choose', 'stepForward'] },
            'sim.scrub': {
              target: '.paused',
              actions: ['choose', 'scrub'],
            },
          },
          states: {
            paused: {
              on: {
                'sim.play': {
                  guard: 'hasSteps',
                  target: 'playing',
                  actions: ['choose', 'playFromShown'],
                },
              },
            },
            playing: {
              tags: ['playing'],
              always: { guard: 'atLiveEnd', target: 'paused' },
              after: { playStep: { target: 'playing', reenter: true, actions: 'stepForward' } },
              on: {
                'sim.pause': 'paused',
                // Following someone shows their step; it does not play on under them.
                'sim.followed': { guard: 'followedMoved', target: 'paused', actions: 'follow' },
              },
            },
          },
        },
      },
    },
  },
});
