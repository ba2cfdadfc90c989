import { createActor, type SnapshotFrom } from 'xstate';
import { layoutMachine, type LayoutEvent } from '../../machines/open-machine/layout.machine.ts';
import { layoutLogic } from '../../src/app/layout.ts';
import { applyOps, counterIds, importXState, type MachineDefinition } from '../../src/lib/model/index.ts';
import type { LayoutRequest, LayoutResult } from '../../src/lib/ports/layout.ts';
import { describeMachinePaths } from './machine-paths.ts';

/**
 * Path tests for the layout machine: every shortest path and every edge replayed on the
 * machine running over the app's engine wiring with a port the test answers by hand. A
 * `layout.done` step answers the open request for that definition; `layout.engineReady`
 * is what a restarted engine says.
 */

type Snapshot = SnapshotFrom<typeof layoutMachine>;

const base = importXState({ id: 'm', initial: 'a', states: { a: {} } }, { ids: counterIds('m') });
const next: MachineDefinition = applyOps(base, [
  { type: 'state.add', id: 's_b', parent: base.root, key: 'b', stateType: 'atomic', index: null },
]);
const answer: LayoutResult = { ok: false, message: 'answered' };

const events: LayoutEvent[] = [
  { type: 'layout.request', definition: base },
  { type: 'layout.request', definition: next },
  { type: 'layout.done', definition: base, result: answer },
  { type: 'layout.done', definition: next, result: answer },
  { type: 'layout.engineReady' },
  { type: 'layout.paneSized', aspect: 1.25 },
];
/** The engine could not start (no Worker): the root invoke's error. */
const ENGINE_FAILED = {
  type: 'xstate.error.actor.engine',
  error: new Error('no Worker here'),
} as unknown as LayoutEvent;

async function replay(steps: readonly LayoutEvent[]) {
  const open: { request: LayoutRequest; resolve: (r: LayoutResult) => void }[] = [];
  const actor = createActor(
    layoutLogic(() => ({
      port: (request) => new Promise<LayoutResult>((resolve) => open.push({ request, resolve })),
      close: () => undefined,
    })),
  ).start();
  for (const event of steps) {
    if (event.type === 'layout.done') {
      const index = open.findIndex((call) => call.request.definition === event.definition);
      open.splice(index, 1)[0]?.resolve(event.result);
      await new Promise((resolve) => setTimeout(resolve, 0));
    } else actor.send(event); // engineReady and the engine's error are facts the test tells the machine
  }
  return actor;
}

const serializeState = (snapshot: Snapshot) =>
  JSON.stringify({
    value: snapshot.value,
    definition: snapshot.context.definition?.states.s_b ? 'next' : snapshot.context.definition ? 'base' : null,
    queued: snapshot.context.queued !== null,
    aspect: snapshot.context.aspect,
  });

describeMachinePaths('layout machine', {
  machine: layoutMachine,
  traversal: {
    events: [...events, ENGINE_FAILED],
    // An answer comes only for a request the engine was given; a broken engine breaks once.
    filterEvents: (snapshot: Snapshot, event: LayoutEvent) =>
      snapshot.can(event) &&
      !snapshot.hasTag('broken') &&
      (event.type !== 'layout.done' || (snapshot.hasTag('busy') && event.definition === snapshot.context.definition)),
    serializeState,
  },
  replay,
  observe: serializeState,
  minEdges: 5,
});
