import { assertEvent } from 'xstate';
import type { SendRequest } from '../../src/lib/ports/simulation.ts';
import { emptyLog } from '../../src/lib/simulation/index.ts';
import { output, request, requestValue } from '../shared.ts';
import { lastStep, refusal, runningIn, simulationSetup } from './simulation.setup.ts';

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

export const simulationMachine = simulationSetup.createMachine({
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
        ...requestValue({
          done: [
            {
              guard: { type: 'runningListed', params: output },
              target: 'open',
              actions: {
                type: 'openSimulation',
                params: runningIn,
              },
            },
            { target: 'idle', actions: { type: 'showFailure', params: output } },
          ],
          threw: {
            target: 'idle',
            actions: { type: 'setError', params: { error: "Couldn't load this machine's simulations." } },
          },
        }),
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
        ...request({
          refused: { target: 'idle', actions: { type: 'showFailure', params: output } },
          done: {
            target: 'open',
            actions: [
              { type: 'openAnswered', params: output },
              { type: 'setError', params: { error: null } },
            ],
          },
          threw: { target: 'idle', actions: { type: 'setError', params: { error: "Couldn't start the simulation." } } },
        }),
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
        ...request({
          refused: { target: 'open', actions: { type: 'showFailure', params: output } },
          done: { target: 'open', actions: { type: 'openAnswered', params: output } },
          threw: { target: 'open', actions: { type: 'setError', params: { error: "Couldn't fork the simulation." } } },
        }),
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
                ...request({
                  refused: { target: 'waiting', actions: { type: 'showFailure', params: output } },
                  done: { target: 'live', actions: { type: 'receiveLog', params: output } },
                  threw: {
                    target: 'waiting',
                    actions: { type: 'setError', params: { error: "Couldn't read the simulation log." } },
                  },
                }),
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
                ...requestValue({
                  done: {
                    target: 'idle',
                    actions: ['dequeue', { type: 'showFailure', params: output }],
                  },
                  threw: {
                    target: 'idle',
                    actions: ['dequeue', { type: 'setError', params: { error: "Couldn't send the event." } }],
                  },
                }),
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
