import { createActor, type SnapshotFrom } from 'xstate';
import { machineListMachine, type MachineListIntent } from '../../machines/room/machine-list.machine.ts';
import type { MachineListEvent, Result } from '../../src/lib/ports/document.ts';
import { describeMachinePaths, settleRequest, type MachinePaths } from './machine-paths.ts';
import {
  fakeMachineList,
  newMachine,
  ok,
  PROJECT,
  refused,
  settle,
  summary,
  type MachineListRequest,
} from './machine-list.fakes.ts';

/**
 * Path tests for the machine list: every state node reached, every
 * shortest path and every edge replayed on the running machine with the fake port (stream
 * events emitted, requests settled). Vertices are the state value plus the context the
 * views and guards read; a few ids (a, b, c, d) keep the list, and so the graph, finite.
 */

type Snapshot = SnapshotFrom<typeof machineListMachine>;
type Event = MachineListIntent | MachineListEvent;
type GraphEvent = Event | { type: string; output?: unknown; error?: unknown };

// Each invocation's id is its actor's name.
const done = (request: MachineListRequest, output: Result<unknown>): GraphEvent => ({
  type: `xstate.done.actor.${request}`,
  output,
});
const crashed = (request: MachineListRequest): GraphEvent => ({
  type: `xstate.error.actor.${request}`,
  error: new Error(`${request} crashed`),
});

const isStream = (type: string) => type.startsWith('machines.');

const events: GraphEvent[] = [
  done('loadMachines', ok([summary('a', 10), summary('b', 20)])),
  done('loadMachines', refused('Network down')),
  crashed('loadMachines'),
  { type: 'list.retry' },
  { type: 'list.dismissError' },
  { type: 'machines.subscribed' },
  { type: 'machines.lost' },
  { type: 'machines.upserted', machine: summary('c', 30) },
  { type: 'machines.deleted', machineId: 'a' },
  { type: 'list.create', machines: [newMachine('Door')] },
  { type: 'list.create', machines: [] },
  done('createMachines', ok([summary('d', 40)])),
  done('createMachines', refused('Viewers cannot create machines.')),
  crashed('createMachines'),
  { type: 'list.rename', machineId: 'b', name: 'Gate' },
  { type: 'list.rename', machineId: 'b', name: '  ' },
  done('renameMachine', ok(summary('b', 20, { name: 'Gate' }))),
  done('renameMachine', refused('Viewers cannot rename machines.')),
  crashed('renameMachine'),
  { type: 'list.delete', machineId: 'b' },
  done('deleteMachine', ok('b')),
  done('deleteMachine', refused('Only editors can delete machines.')),
  crashed('deleteMachine'),
];

function key(snapshot: Snapshot): string {
  const { machines, sinceLoad, reloadDue, error } = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    machines: machines.map((m) => `${m.id}:${m.name}`),
    sinceLoad,
    reloadDue,
    error,
  });
}

const traversal = {
  events: events as Event[],
  filterEvents: (snapshot: Snapshot, event: Event) => {
    if (!snapshot.can(event)) return false;
    // Live changes, requests and their errors are independent of one another: explore each
    // from an otherwise untouched list (a and b as loaded) rather than every combination.
    const { machines, sinceLoad, reloadDue, error } = snapshot.context;
    const pristine =
      machines.map((m) => `${m.id}:${m.name}`).join() === 'b:Machine b,a:Machine a' && error === null && !reloadDue;
    // At most one change waits for a read's answer: enough to replay rememberChange.
    if (event.type === 'machines.upserted' || event.type === 'machines.deleted') {
      return snapshot.matches('loading') ? sinceLoad.length === 0 : pristine && snapshot.matches({ ready: 'idle' });
    }
    if (event.type === 'list.create' || event.type === 'list.rename' || event.type === 'list.delete') return pristine;
    return true;
  },
  serializeState: key,
  serializeEvent: (event: Event) => JSON.stringify(event),
  input: { projectId: PROJECT },
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = fakeMachineList();
  const actor = createActor(machineListMachine.provide({ actors: fake.actors }), {
    input: { projectId: PROJECT },
  }).start();
  for (const event of steps) {
    if (await settleRequest(fake, event)) continue;
    if (isStream(event.type)) fake.emit(event as MachineListEvent);
    else actor.send(event as Event);
    await settle();
  }
  return actor;
}

// The helper's logic type declares no emitted events; this machine emits `list.created`, which the graph ignores.
const machine = machineListMachine as unknown as MachinePaths<Snapshot, Event, { projectId: string }>['machine'];

describeMachinePaths('machine list machine', {
  machine,
  traversal,
  replay,
  observe: key,
  minEdges: 100,
  timeout: 120_000,
});
