import { describe, expect, it } from 'vitest';
import { assign, createActor, createMachine, type AnyEventObject } from 'xstate';
import type { canvasPresenceMachine } from '../../machines/open-machine/canvas-presence.machine.ts';
import type { documentMachine } from '../../machines/open-machine/document.machine.ts';
import { counterIds, importXState } from '../../src/lib/model/index.ts';
import { fakeOpenMachine, OPEN_INPUT } from './open-machine.fakes.ts';

const door = importXState({ id: 'door', initial: 'idle', states: { idle: {} } }, { ids: counterIds('o') });

/** The open machine's routing for the timeline: the log's head and who is here go to it; a restore comes back as ops. */
describe('open machine and its timeline', () => {
  it('tells the timeline the head version and the people on the machine, and applies a restored version', () => {
    const { logic, told } = fakeOpenMachine();
    const document = createMachine({
      types: {} as { context: { doc: { local: typeof door; version: number } | null }; events: AnyEventObject },
      context: { doc: null },
      on: {
        'test.version': {
          actions: assign({
            doc: ({ event }) => ({ local: door, version: (event as unknown as { version: number }).version }),
          }),
        },
        '*': { actions: ({ event }) => told.document.push(event) },
      },
    }) as unknown as typeof documentMachine;
    const presence = createMachine({
      types: {} as { context: { peers: Record<string, unknown> }; events: AnyEventObject },
      context: { peers: {} },
      on: {
        'test.peers': {
          actions: assign({
            peers: ({ event }) => Object.fromEntries((event as unknown as { ids: string[] }).ids.map((id) => [id, {}])),
          }),
        },
      },
    }) as unknown as typeof canvasPresenceMachine;
    const actor = createActor(logic.provide({ actors: { document, presence } }), { input: OPEN_INPUT }).start();
    const children = actor.getSnapshot().children;
    children.document?.send({ type: 'test.version', version: 7 } as never);
    children.presence?.send({ type: 'test.peers', ids: ['u-ada', 'u-bob'] } as never);
    expect(told.timeline).toContainEqual({ type: 'timeline.headMoved', version: 7 });
    expect(told.timeline.filter((e) => e.type === 'timeline.peersChanged').at(-1)).toMatchObject({
      userIds: ['u-ada', 'u-bob'],
    });

    const renamed = { ...door, states: { ...door.states } };
    const idle = Object.values(door.states).find((s) => s.key === 'idle')!;
    renamed.states[idle.id] = { ...idle, key: 'waiting' };
    actor.send({ type: 'machine.replace', definition: renamed });
    expect(told.document.at(-1)).toEqual({
      type: 'doc.edit',
      ops: [{ type: 'state.rename', id: idle.id, key: 'waiting' }],
    });
    actor.stop();
  });
});
