import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { canvasPresenceLogic } from '../../src/app/canvas.ts';
import type {
  CanvasChannel,
  CanvasPresencePort,
  Point,
  PresenceFact,
  PresenterOffer,
  ReplayLook,
  View,
} from '../../src/lib/ports/canvas-presence.ts';
import { BOB, MACHINE, ME, peer } from './canvas-presence.fakes.ts';

/**
 * The composition root's channel actor (src/app/canvas.ts) between the presence machine
 * and a port: facts in, commands out to the right channel method, a failing stream
 * reported as a lost channel, and the subscription ended with the machine.
 */

function fakePort() {
  const facts = new Subject<PresenceFact>();
  const opened: [string, string][] = [];
  const sent: {
    selection: string[][];
    cursor: (Point | null)[];
    view: View[];
    replay: (ReplayLook | null)[];
    offer: PresenterOffer[];
  } = {
    selection: [],
    cursor: [],
    view: [],
    replay: [],
    offer: [],
  };
  const port: CanvasPresencePort = {
    open(machineId, userId): CanvasChannel {
      opened.push([machineId, userId]);
      return {
        facts$: facts,
        trackSelection: (selection) => sent.selection.push(selection),
        trackReplay: (replay) => sent.replay.push(replay),
        trackOffer: (offer) => sent.offer.push(offer),
        moveCursor: (at) => sent.cursor.push(at),
        moveView: (view) => sent.view.push(view),
      };
    },
  };
  return { port, facts, opened, sent };
}

function start() {
  const fake = fakePort();
  const actor = createActor(canvasPresenceLogic(fake.port), { input: { machineId: MACHINE, userId: ME } }).start();
  return { ...fake, actor, snap: () => actor.getSnapshot() };
}

describe('canvas presence wiring', () => {
  it('opens the machine’s channel as this person and passes facts in', () => {
    const { facts, opened, snap } = start();
    expect(opened).toEqual([[MACHINE, ME]]);
    facts.next({ type: 'presence.joined' });
    facts.next({ type: 'presence.synced', peers: [peer(BOB, ['s'])] });
    facts.next({ type: 'cursor.moved', userId: BOB, at: { x: 1, y: 2 } });
    expect(snap().hasTag('live')).toBe(true);
    expect(snap().context.peers[BOB]).toEqual({
      userId: BOB,
      agent: false,
      selection: ['s'],
      cursor: { x: 1, y: 2 },
      view: null,
      replay: null,
      followable: true,
      spotlight: false,
    });
  });

  it('sends selection, pointer, view and the presenter offer through the channel’s own methods', () => {
    const { facts, actor, sent } = start();
    facts.next({ type: 'presence.joined' });
    actor.send({ type: 'presence.select', selection: ['a'] });
    actor.send({ type: 'presence.point', at: { x: 3, y: 4 } });
    actor.send({ type: 'presence.point', at: null });
    actor.send({ type: 'presence.look', view: { x: 5, y: 6, zoom: 2 } });
    actor.send({ type: 'presence.replay', replay: { simulationId: 's-1', position: 3 } });
    actor.send({ type: 'presence.spotlight', on: true });
    expect(sent).toEqual({
      selection: [[], ['a']],
      cursor: [{ x: 3, y: 4 }, null],
      view: [{ x: 5, y: 6, zoom: 2 }],
      replay: [{ simulationId: 's-1', position: 3 }],
      // Sent on joining, then with the spotlight.
      offer: [
        { followable: true, spotlight: false },
        { followable: true, spotlight: true },
      ],
    });
  });

  it('reports a failing stream as a lost channel with its message', () => {
    const { facts, snap } = start();
    facts.next({ type: 'presence.joined' });
    facts.error(new Error('Unauthorized: not a member of this project'));
    expect(snap().hasTag('offline')).toBe(true);
    expect(snap().context.error).toBe('Unauthorized: not a member of this project');

    const other = start();
    other.facts.error('closed');
    expect(other.snap().context.error).toBe('The live connection failed');
  });

  it('ends the subscription when the machine stops', () => {
    const { facts, actor } = start();
    expect(facts.observed).toBe(true);
    actor.stop();
    expect(facts.observed).toBe(false);
  });
});
