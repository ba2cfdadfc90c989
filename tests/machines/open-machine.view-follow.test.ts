import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { canvasPresenceMachine } from '../../machines/open-machine/canvas-presence.machine.ts';
import type { View } from '../../src/lib/ports/canvas-presence.ts';
import { BOB, fakeCanvasChannel, ME, peer } from './canvas-presence.fakes.ts';
import { fakeOpenMachine, OPEN_INPUT } from './open-machine.fakes.ts';

/**
 * Follow mode over the viewport: the open machine with the real canvas and presence
 * machines over a fake channel. The view no longer sends either from an effect: the
 * stage's size reaches the canvas (`canvas.paneSized`), and from it the open machine
 * tells presence what this person looks at and shows the followed person's view.
 */

function start() {
  const { logic } = fakeOpenMachine();
  const channel = fakeCanvasChannel();
  const actor = createActor(
    logic.provide({ actors: { presence: canvasPresenceMachine.provide({ actors: channel.actors }) } }),
    { input: { ...OPEN_INPUT, userId: ME } },
  ).start();
  const canvas = () => actor.getSnapshot().children.canvas!;
  const presence = () => actor.getSnapshot().children.presence!;
  const viewsSent = () => channel.commands.flatMap((c) => (c.type === 'send.view' ? [c.view] : []));
  channel.emit({ type: 'presence.joined' });
  channel.emit({ type: 'presence.synced', peers: [peer(ME), peer(BOB)] });
  const bobLooks = (view: View) => channel.emit({ type: 'view.moved', userId: BOB, view });
  return { actor, canvas, presence, viewsSent, bobLooks };
}

describe('open machine: what this person looks at, and following a view', () => {
  it('tells presence the world point at the stage’s centre once the stage is measured, and only when it changes', () => {
    const { actor, canvas, viewsSent } = start();
    // Not measured yet: there is no look to tell.
    canvas().send({ type: 'canvas.panStart' });
    canvas().send({ type: 'canvas.panBy', dx: 10, dy: 0 });
    canvas().send({ type: 'canvas.panEnd' });
    expect(canvas().getSnapshot().context.viewport).toEqual({ x: 34, y: 24, zoom: 1 });
    expect(viewsSent()).toEqual([]);

    canvas().send({ type: 'canvas.paneSized', width: 800, height: 600 });
    // The viewport is x 34, y 24, zoom 1: the centre (400, 300) is world (366, 276).
    expect(viewsSent()).toEqual([{ x: 366, y: 276, zoom: 1 }]);
    // A selection changes the canvas, not the look.
    canvas().send({ type: 'canvas.select', id: 'a', additive: false });
    expect(viewsSent()).toHaveLength(1);
    canvas().send({ type: 'canvas.zoomAt', factor: 2, x: 400, y: 300 });
    expect(viewsSent().at(-1)).toEqual({ x: 366, y: 276, zoom: 2 });
    expect(viewsSent()).toHaveLength(2);
    actor.stop();
  });

  it('a follower’s canvas centres the followed view on its own stage, live, until the follow ends', () => {
    const { actor, canvas, presence, bobLooks } = start();
    canvas().send({ type: 'canvas.paneSized', width: 800, height: 600 });
    bobLooks({ x: 100, y: 50, zoom: 2 });
    // Not following yet: Bob's view is his own.
    expect(canvas().getSnapshot().context.viewport).toEqual({ x: 24, y: 24, zoom: 1 });

    presence().send({ type: 'presence.follow', userId: BOB });
    expect(canvas().getSnapshot().context.viewport).toEqual({ x: 200, y: 200, zoom: 2 });
    bobLooks({ x: 0, y: 0, zoom: 1 });
    expect(canvas().getSnapshot().context.viewport).toEqual({ x: 400, y: 300, zoom: 1 });

    presence().send({ type: 'presence.unfollow' });
    bobLooks({ x: 500, y: 500, zoom: 1 });
    expect(canvas().getSnapshot().context.viewport).toEqual({ x: 400, y: 300, zoom: 1 });
    // Following again shows where he is now, even where he was before.
    presence().send({ type: 'presence.follow', userId: BOB });
    expect(canvas().getSnapshot().context.viewport).toEqual({ x: -100, y: -200, zoom: 1 });
    actor.stop();
  });
});
