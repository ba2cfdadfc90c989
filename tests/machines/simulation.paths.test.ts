import { vi } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { simulationMachine, type SimulationIntent } from '../../machines/open-machine/simulation.machine.ts';
import type { SimListStreamEvent, SimLogStreamEvent, SimResult } from '../../src/lib/ports/simulation.ts';
import { describeMachinePaths, requestOutcome, type MachinePaths } from './machine-paths.ts';
import {
  entry,
  fakeSimulationPort,
  MACHINE,
  ok,
  refused,
  settle,
  simulation,
  type SimulationRequest,
} from './simulation.fakes.ts';

/**
 * Path tests (house style rule 12) for the simulation machine: every state node reached,
 * every shortest path and every edge replayed on the running machine with the fake port.
 * Vertices are the state value plus what views and guards read; the log stays within
 * two entries and the outbox within one, so the graph is finite.
 */

type Snapshot = SnapshotFrom<typeof simulationMachine>;
type Event = SimulationIntent | SimLogStreamEvent | SimListStreamEvent;
type GraphEvent = Event | { type: string; output?: unknown; error?: unknown };

const REQUESTS: Record<string, SimulationRequest> = {
  '0.simulation.loading': 'listSimulations',
  '0.simulation.starting': 'startSimulation',
  '0.simulation.forking': 'forkSimulation',
  '0.simulation.open.sync.catchingUp': 'loadLog',
  '0.simulation.open.outbox.sending': 'sendEvent',
};
const invocation = (request: SimulationRequest) =>
  Object.keys(REQUESTS).find((id) => REQUESTS[id] === request) ?? request;
const done = (request: SimulationRequest, output: SimResult<unknown>): GraphEvent => ({
  type: `xstate.done.actor.${invocation(request)}`,
  output,
});
const crashed = (request: SimulationRequest): GraphEvent => ({
  type: `xstate.error.actor.${invocation(request)}`,
  error: new Error(`${request} crashed`),
});
const PLAY_STEP = 'xstate.after.playStep.simulation.open.playback.playing';
const RETRY = 'xstate.after.retryDelay.simulation.open.sync.waiting';

const events: GraphEvent[] = [
  done('listSimulations', ok([])),
  done('listSimulations', ok([simulation('a')])),
  done('listSimulations', refused('Network down')),
  crashed('listSimulations'),
  { type: 'sim.start', context: null },
  done('startSimulation', ok(simulation('b'))),
  done('startSimulation', refused('Not a member')),
  crashed('startSimulation'),
  { type: 'sims.started', simulation: simulation('c') },
  { type: 'sims.updated', simulation: simulation('a', { status: 'ended' }) },
  done('loadLog', ok([entry(1), entry(2, null)])),
  done('loadLog', ok([])),
  done('loadLog', refused('Network down')),
  crashed('loadLog'),
  { type: 'simlog.received', entries: [entry(1)] },
  { type: 'simlog.received', entries: [entry(2, null)] },
  { type: 'simlog.subscribed' },
  { type: 'simlog.lost' },
  { type: 'sim.retry' },
  { type: RETRY },
  { type: 'sim.send', eventType: 'GO', payload: {} },
  { type: 'sim.advanceTime' },
  done('sendEvent', ok({ seq: 1 })),
  done('sendEvent', refused('Too many events')),
  crashed('sendEvent'),
  { type: 'sim.setGuard', name: 'ready', value: true },
  { type: 'sim.stepBack' },
  { type: 'sim.stepForward' },
  { type: 'sim.scrub', step: 0 },
  { type: 'sim.play' },
  { type: 'sim.pause' },
  { type: PLAY_STEP },
  { type: 'sim.fork' },
  { type: 'sim.rerun' },
  done('forkSimulation', ok(simulation('f'))),
  done('forkSimulation', refused('Not a member')),
  crashed('forkSimulation'),
  { type: 'sim.dismissError' },
  { type: 'sim.canSendChanged', canSend: false },
  { type: 'sim.canSendChanged', canSend: true },
  { type: 'sim.followed', replay: { simulationId: 'a', position: 1 } },
  { type: 'sim.followed', replay: null },
];

function key(snapshot: Snapshot): string {
  const { simulation: sim, log, position, outbox, error, guards } = snapshot.context;
  const { canSend, followed } = snapshot.context;
  return JSON.stringify({
    followed,
    value: snapshot.value,
    sim: sim ? `${sim.id}:${sim.status}` : null,
    ready: log.ready,
    known: log.entries.size,
    position,
    outbox: outbox.length,
    error,
    guards,
    canSend,
  });
}

const traversal = {
  events: events as Event[],
  filterEvents: (snapshot: Snapshot, event: Event) => {
    if (!snapshot.can(event)) return false;
    const { simulation: sim, log, outbox, error, position, guards } = snapshot.context;
    const type = event.type as string;
    // Under fake timers one delay cannot fire without the other's clock moving too: take each alone.
    if (type === PLAY_STEP || type === RETRY)
      return !snapshot.matches({ open: { sync: 'waiting', playback: 'playing' } });
    // Errors, guard switches and other simulations are explored from a plain open simulation only.
    const plain = error === null && outbox.length === 0 && position === null && Object.keys(guards).length === 0;
    // A watcher (canSend false) is explored only from where it starts, and may become a member again.
    if (type === 'sim.canSendChanged')
      return (
        (event as { canSend: boolean }).canSend !== snapshot.context.canSend && (plain || !snapshot.context.canSend)
      );
    if (!snapshot.context.canSend) return type === 'sim.send' || type === 'sim.start' || type === 'sim.canSendChanged';
    // Following is explored on the first simulation, with its log read, from the live end or a followed step.
    if (type === 'sim.followed')
      return (
        error === null && outbox.length === 0 && sim?.id === 'a' && log.ready > 0 && Object.keys(guards).length === 0
      );
    if (type === 'sim.setGuard' || type === 'sims.started' || type === 'sims.updated')
      return plain && sim?.id === 'a' && sim.status === 'running';
    if (type === 'sim.send' || type === 'sim.advanceTime')
      return outbox.length === 0 && position === null && error === null;
    if (type.startsWith('xstate.done.actor.') && (event as { output?: SimResult<unknown> }).output?.ok === false)
      return plain || snapshot.matches('loading') || snapshot.matches('starting');
    if (type.startsWith('xstate.error.actor.'))
      return plain || snapshot.matches('loading') || snapshot.matches('starting');
    if (type === 'simlog.received') return error === null && outbox.length === 0 && log.entries.size < 2;
    if (type === 'sim.fork' || type === 'sim.rerun' || type === 'sim.start')
      return error === null && outbox.length === 0;
    if (type.startsWith('sim.') && type !== 'sim.dismissError' && type !== 'sim.retry')
      return error === null && outbox.length === 0;
    return true;
  },
  serializeState: key,
  serializeEvent: (event: Event) => JSON.stringify(event),
  input: { machineId: MACHINE, canSend: true },
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = fakeSimulationPort();
  const actor = createActor(simulationMachine.provide({ actors: fake.actors }), {
    input: { machineId: MACHINE, canSend: true },
  }).start();
  for (const event of steps) {
    const outcome = requestOutcome(event);
    const request = outcome ? REQUESTS[outcome.name] : undefined;
    if (outcome && request) {
      if (outcome.settled === 'done') await fake.settle(request, outcome.output);
      else await fake.fail(request, outcome.error);
    } else if (outcome) throw new Error(`no request is named ${outcome.name}`);
    else if (event.type === PLAY_STEP) await vi.advanceTimersByTimeAsync(600);
    else if (event.type === RETRY) await vi.advanceTimersByTimeAsync(2000);
    else if (event.type.startsWith('simlog.')) fake.emitLog(event as SimLogStreamEvent);
    else if (event.type.startsWith('sims.')) fake.emitList(event as SimListStreamEvent);
    else actor.send(event as Event);
    await settle();
  }
  return actor;
}

const machine = simulationMachine as unknown as MachinePaths<
  Snapshot,
  Event,
  { machineId: string; canSend: boolean }
>['machine'];

describeMachinePaths('simulation machine', {
  machine,
  traversal,
  replay,
  observe: key,
  minEdges: 100,
  fakeTimers: true,
  timeout: 240_000,
});
