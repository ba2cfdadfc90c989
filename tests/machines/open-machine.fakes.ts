import { assign, createActor, createMachine, fromCallback, type AnyEventObject } from 'xstate';
import type { canvasPresenceMachine } from '../../machines/open-machine/canvas-presence.machine.ts';
import type { documentMachine } from '../../machines/open-machine/document.machine.ts';
import type { layoutMachine } from '../../machines/open-machine/layout.machine.ts';
import type { simulationMachine } from '../../machines/open-machine/simulation.machine.ts';
import type { timelineMachine } from '../../machines/open-machine/timeline.machine.ts';
import type { inspectorMachine } from '../../machines/open-machine/inspector.machine.ts';
import type { testPlaybackMachine } from '../../machines/open-machine/test-playback.machine.ts';
import type { commentsMachine } from '../../machines/open-machine/comments.machine.ts';
import type { testsMachine } from '../../machines/open-machine/tests.machine.ts';
import type { versionsMachine } from '../../machines/open-machine/versions.machine.ts';
import type { proposalsMachine } from '../../machines/open-machine/proposals.machine.ts';
import type { PlayShown } from '../../src/lib/ports/test-playback.ts';
import { openMachineMachine, type OpenMachineInput } from '../../machines/open-machine/open-machine.machine.ts';
import { counterIds, importXState } from '../../src/lib/model/index.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { Layout } from '../../src/lib/layout/types.ts';

/**
 * The open machine with its document, presence, layout, simulation, timeline, Inspector,
 * tests, test playback, versions, comments and proposals replaced by recorders (they
 * have their own tests) and the real canvas: a test loads a definition into the fake
 * document (`load`) and reads what each child was told. Typed as the children they stand
 * in for (test doubles, by design).
 */
export function fakeOpenMachine() {
  const told = {
    document: [] as AnyEventObject[],
    presence: [] as AnyEventObject[],
    layout: [] as AnyEventObject[],
    simulation: [] as AnyEventObject[],
    timeline: [] as AnyEventObject[],
    inspector: [] as AnyEventObject[],
    tests: [] as AnyEventObject[],
    testPlayback: [] as AnyEventObject[],
    versions: [] as AnyEventObject[],
    comments: [] as AnyEventObject[],
    proposals: [] as AnyEventObject[],
  };
  const document = createMachine({
    types: {} as {
      context: { doc: { local: MachineDefinition; version?: number } | null };
      events: AnyEventObject;
    },
    context: { doc: null },
    on: {
      // A definition, and the log's head it is at when given.
      'test.load': {
        actions: assign({
          doc: ({ event }) => {
            const { definition, version } = event as unknown as { definition: MachineDefinition; version?: number };
            return version === undefined ? { local: definition } : { local: definition, version };
          },
        }),
      },
      '*': { actions: ({ event }) => told.document.push(event) },
    },
  }) as unknown as typeof documentMachine;
  const recorder = (log: AnyEventObject[]) =>
    fromCallback<AnyEventObject>(({ receive }) => receive((event) => log.push(event)));
  const logic = openMachineMachine.provide({
    actors: {
      document,
      // A machine with the peers the open machine reads for the timeline (nobody here).
      presence: createMachine({
        types: {} as { context: { peers: Record<string, unknown> }; events: AnyEventObject },
        context: { peers: {} },
        on: { '*': { actions: ({ event }) => told.presence.push(event) } },
      }) as unknown as typeof canvasPresenceMachine,
      // A machine with the layout the open machine passes to the canvas (`test.laidOut` sets it, as a finished layout would).
      layout: createMachine({
        types: {} as { context: { layout: Layout | null }; events: AnyEventObject },
        context: { layout: null },
        on: {
          'test.laidOut': {
            actions: assign({ layout: ({ event }) => (event as unknown as { layout: Layout }).layout }),
          },
          '*': { actions: ({ event }) => told.layout.push(event) },
        },
      }) as unknown as typeof layoutMachine,
      // A machine with no simulation open (the open machine shares its replay step on presence).
      simulation: createMachine({
        types: {} as { context: { simulation: null; position: null }; events: AnyEventObject },
        context: { simulation: null, position: null },
        on: { '*': { actions: ({ event }) => told.simulation.push(event) } },
      }) as unknown as typeof simulationMachine,
      timeline: recorder(told.timeline) as unknown as typeof timelineMachine,
      inspector: recorder(told.inspector) as unknown as typeof inspectorMachine,
      // A machine with the play the open machine shares (`test.play` sets it, as selecting in the panel would).
      tests: createMachine({
        types: {} as { context: { play: PlayShown | null }; events: AnyEventObject },
        context: { play: null },
        on: {
          'test.play': {
            actions: assign({ play: ({ event }) => (event as unknown as { play: PlayShown | null }).play }),
          },
          '*': { actions: ({ event }) => told.tests.push(event) },
        },
      }) as unknown as typeof testsMachine,
      testPlayback: recorder(told.testPlayback) as unknown as typeof testPlaybackMachine,
      versions: recorder(told.versions) as unknown as typeof versionsMachine,
      comments: recorder(told.comments) as unknown as typeof commentsMachine,
      proposals: recorder(told.proposals) as unknown as typeof proposalsMachine,
    },
  });
  return { logic, told };
}

export const OPEN_INPUT: OpenMachineInput = {
  machineId: 'm-1',
  userId: 'u-ada',
  canEdit: true,
  document: { clientId: 'tab-1', model: null as never, newBatchId: () => 'batch-1' },
};

/** A two-state checkout, and its `cart` state's id. */
export const checkout = importXState(
  { id: 'checkout', initial: 'cart', states: { cart: { on: { PAY: 'paid' } }, paid: {} } },
  { ids: counterIds('c') },
);
export const cartId = Object.values(checkout.states).find((s) => s.key === 'cart')?.id ?? '';

/** The fake open machine running, with the checkout loaded into its document. */
export function startOpen(input = OPEN_INPUT) {
  const fake = fakeOpenMachine();
  const actor = createActor(fake.logic, { input }).start();
  const child = <K extends 'document' | 'canvas' | 'tests' | 'layout'>(id: K) => actor.getSnapshot().children[id];
  child('document')?.send({ type: 'test.load', definition: checkout } as never);
  return { ...fake, actor, child };
}
