import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { canvasPresenceMachine } from '../../machines/open-machine/canvas-presence.machine.ts';
import { BOB, EVE, fakeCanvasChannel, MACHINE, ME, peer } from './canvas-presence.fakes.ts';

/** The canvas presence machine with a fake channel: arrange, act, assert. */

function start() {
  const channel = fakeCanvasChannel();
  const actor = createActor(canvasPresenceMachine.provide({ actors: channel.actors }), {
    input: { machineId: MACHINE, userId: ME },
  }).start();
  const snap = () => actor.getSnapshot();
  const peers = () => snap().context.peers;
  return { channel, actor, snap, peers };
}

/** A peer as the machine keeps them, just joined with nothing selected. */
const fresh = (userId: string) => ({
  userId,
  agent: false,
  selection: [],
  cursor: null,
  view: null,
  replay: null,
  followable: true,
  spotlight: false,
});

/** Joined, with Bob and Eve on the canvas. */
function live() {
  const started = start();
  started.channel.emit({ type: 'presence.joined' });
  started.channel.emit({ type: 'presence.synced', peers: [peer(ME, ['s1']), peer(BOB, ['a']), peer(EVE)] });
  return started;
}

describe('canvas presence machine', () => {
  it('opens the channel for this machine and person, joining until the channel says joined', () => {
    const { channel, actor, snap } = start();
    expect(channel.inputs).toEqual([{ machineId: MACHINE, userId: ME }]);
    expect(snap().hasTag('joining')).toBe(true);
    expect(snap().hasTag('live')).toBe(false);
    channel.emit({ type: 'presence.joined' });
    expect(snap().hasTag('live')).toBe(true);
    expect(snap().hasTag('joining')).toBe(false);
    actor.stop();
    expect(channel.channels).toEqual({ opened: 1, closed: 1 });
  });

  it('keeps everyone but the person themself as peers, with their selections', () => {
    const { peers } = live();
    expect(Object.keys(peers()).sort()).toEqual([BOB, EVE]);
    expect(peers()[BOB]).toEqual({
      userId: BOB,
      agent: false,
      selection: ['a'],
      cursor: null,
      view: null,
      replay: null,
      followable: true,
      spotlight: false,
    });
    expect(peers()[EVE]).toEqual(fresh(EVE));
  });

  it('moves cursors and views of known peers only', () => {
    const { channel, peers } = live();
    channel.emit({ type: 'cursor.moved', userId: BOB, at: { x: 10, y: 20 } });
    channel.emit({ type: 'view.moved', userId: EVE, view: { x: 1, y: 2, zoom: 1.5 } });
    expect(peers()[BOB]?.cursor).toEqual({ x: 10, y: 20 });
    expect(peers()[EVE]?.view).toEqual({ x: 1, y: 2, zoom: 1.5 });
    // A pointer that left the diagram.
    channel.emit({ type: 'cursor.moved', userId: BOB, at: null });
    expect(peers()[BOB]?.cursor).toBeNull();

    // Broadcasts can arrive before (or after) presence says who is here; and this person's own echo is no peer.
    const before = peers();
    channel.emit({ type: 'cursor.moved', userId: 'u-stranger', at: { x: 1, y: 1 } });
    channel.emit({ type: 'view.moved', userId: 'u-stranger', view: { x: 1, y: 1, zoom: 1 } });
    channel.emit({ type: 'cursor.moved', userId: ME, at: { x: 1, y: 1 } });
    channel.emit({ type: 'view.moved', userId: ME, view: { x: 1, y: 1, zoom: 1 } });
    expect(peers()).toEqual(before);
  });

  it('keeps a peer’s cursor and view across a re-sync, taking the new selection', () => {
    const { channel, peers } = live();
    channel.emit({ type: 'cursor.moved', userId: BOB, at: { x: 5, y: 6 } });
    channel.emit({ type: 'view.moved', userId: BOB, view: { x: 7, y: 8, zoom: 2 } });
    channel.emit({ type: 'presence.synced', peers: [peer(BOB, ['b', 'c'], 2), peer(EVE)] });
    expect(peers()[BOB]).toEqual({
      userId: BOB,
      agent: false,
      selection: ['b', 'c'],
      cursor: { x: 5, y: 6 },
      view: { x: 7, y: 8, zoom: 2 },
      replay: null,
      followable: true,
      spotlight: false,
    });
  });

  it('drops a peer who leaves, ending follow mode if this person followed them', () => {
    const { channel, actor, snap, peers } = live();
    actor.send({ type: 'presence.follow', userId: BOB });
    expect(snap().context.following).toBe(BOB);

    // Someone else leaving does not end it.
    channel.emit({ type: 'presence.synced', peers: [peer(ME), peer(BOB)] });
    expect(Object.keys(peers())).toEqual([BOB]);
    expect(snap().context.following).toBe(BOB);

    channel.emit({ type: 'presence.synced', peers: [peer(ME)] });
    expect(peers()).toEqual({});
    expect(snap().context.following).toBeNull();

    // Coming back is a fresh peer: nothing remembered from before.
    channel.emit({ type: 'cursor.moved', userId: BOB, at: { x: 1, y: 1 } });
    channel.emit({ type: 'presence.synced', peers: [peer(BOB)] });
    expect(peers()[BOB]).toEqual(fresh(BOB));
    expect(snap().context.following).toBeNull();
  });

  it('refuses to follow oneself or someone not on the canvas; unfollow ends it', () => {
    const { actor, snap } = live();
    actor.send({ type: 'presence.follow', userId: ME });
    expect(snap().context.following).toBeNull();
    expect(snap().can({ type: 'presence.follow', userId: ME })).toBe(false);
    actor.send({ type: 'presence.follow', userId: 'u-stranger' });
    expect(snap().context.following).toBeNull();

    actor.send({ type: 'presence.follow', userId: EVE });
    expect(snap().context.following).toBe(EVE);
    // Switching whom to follow.
    actor.send({ type: 'presence.follow', userId: BOB });
    expect(snap().context.following).toBe(BOB);
    actor.send({ type: 'presence.unfollow' });
    expect(snap().context.following).toBeNull();
    // Unfollowing when following nobody is harmless.
    actor.send({ type: 'presence.unfollow' });
    expect(snap().context.following).toBeNull();
  });

  it('refuses to follow anyone before presence has said who is here', () => {
    const { channel, actor, snap } = start();
    channel.emit({ type: 'presence.joined' });
    actor.send({ type: 'presence.follow', userId: BOB });
    expect(snap().context.following).toBeNull();
  });

  it('sends the selection only when it changed', () => {
    const { channel, actor, snap } = live();
    // Joining published the (empty) selection once.
    expect(channel.selectionsSent()).toEqual([[]]);
    actor.send({ type: 'presence.select', selection: [] });
    expect(channel.selectionsSent()).toEqual([[]]);
    actor.send({ type: 'presence.select', selection: ['a', 'b'] });
    actor.send({ type: 'presence.select', selection: ['a', 'b'] });
    expect(channel.selectionsSent()).toEqual([[], ['a', 'b']]);
    // Order counts: it is the order the person selected in.
    actor.send({ type: 'presence.select', selection: ['b', 'a'] });
    actor.send({ type: 'presence.select', selection: ['b'] });
    expect(channel.selectionsSent()).toEqual([[], ['a', 'b'], ['b', 'a'], ['b']]);
    expect(snap().context.selection).toEqual(['b']);
  });

  it('re-sends the selection on every join, including one made while offline', () => {
    const { channel, actor } = start();
    actor.send({ type: 'presence.select', selection: ['x'] });
    expect(channel.selectionsSent()).toEqual([['x']]);
    channel.emit({ type: 'presence.joined' });
    expect(channel.selectionsSent()).toEqual([['x'], ['x']]);

    channel.emit({ type: 'presence.lost', message: 'The live connection closed' });
    actor.send({ type: 'presence.select', selection: ['y'] });
    channel.emit({ type: 'presence.joined' });
    expect(channel.selectionsSent()).toEqual([['x'], ['x'], ['y'], ['y']]);
  });

  it('passes the pointer and the view on to the channel every time', () => {
    const { channel, actor } = live();
    const before = channel.commands.length;
    actor.send({ type: 'presence.point', at: { x: 1, y: 2 } });
    actor.send({ type: 'presence.point', at: { x: 1, y: 2 } });
    actor.send({ type: 'presence.point', at: null });
    actor.send({ type: 'presence.look', view: { x: 3, y: 4, zoom: 0.5 } });
    // Throttling is the adapter's job (src/lib/throttle.ts), not the machine's.
    expect(channel.commands.slice(before)).toEqual([
      { type: 'send.cursor', at: { x: 1, y: 2 } },
      { type: 'send.cursor', at: { x: 1, y: 2 } },
      { type: 'send.cursor', at: null },
      { type: 'send.view', view: { x: 3, y: 4, zoom: 0.5 } },
    ]);
  });

  it("shows this person's own agent as a peer apart from their tabs, and never follows an agent", () => {
    const { actor, channel, peers, snap } = live();
    channel.emit({
      type: 'presence.synced',
      peers: [peer(ME, ['mine']), peer(ME, ['s1'], 1, true), peer(BOB, ['b']), peer(BOB, [], 1, true)],
    });
    expect(Object.keys(peers()).sort()).toEqual([`${ME}/agent`, BOB, `${BOB}/agent`].sort());
    expect(peers()[`${BOB}/agent`]).toMatchObject({ userId: BOB, agent: true, selection: [] });
    // The agent's empty selection leaves Bob's own as it was.
    expect(peers()[BOB]).toMatchObject({ agent: false, selection: ['b'] });
    channel.emit({ type: 'cursor.moved', userId: BOB, agent: true, at: { x: 1, y: 1 } });
    expect(peers()[`${BOB}/agent`]?.cursor).toEqual({ x: 1, y: 1 });
    expect(peers()[BOB]?.cursor).toBeNull();
    actor.send({ type: 'presence.follow', userId: `${BOB}/agent` });
    expect(snap().context.following).toBeNull();
  });

  it('takes no peer id from another browser for a property of the record', () => {
    const { channel, actor, snap, peers } = live();
    const before = peers();
    // A broadcast or a follow naming an inherited key used to make a phantom peer without
    // a userId or selection, which crashed every other member's diagram.
    for (const userId of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      channel.emit({ type: 'cursor.moved', userId, at: { x: 1, y: 1 } });
      channel.emit({ type: 'view.moved', userId, view: { x: 1, y: 1, zoom: 1 } });
      actor.send({ type: 'presence.follow', userId });
      expect(snap().context.following).toBeNull();
    }
    expect(peers()).toEqual(before);
    expect(Object.values(peers()).every((p) => typeof p.userId === 'string' && Array.isArray(p.selection))).toBe(true);

    // Such an id, if presence lists it, is an ordinary peer: an own key, the prototype untouched.
    channel.emit({ type: 'presence.synced', peers: [peer('__proto__', ['q']), peer('constructor')] });
    expect(Object.keys(peers()).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(peers())).toBe(Object.prototype);
    channel.emit({ type: 'cursor.moved', userId: '__proto__', at: { x: 3, y: 4 } });
    expect(Object.getOwnPropertyDescriptor(peers(), '__proto__')?.value).toEqual({
      userId: '__proto__',
      agent: false,
      selection: ['q'],
      cursor: { x: 3, y: 4 },
      view: null,
      replay: null,
      followable: true,
      spotlight: false,
    });
    actor.send({ type: 'presence.follow', userId: 'constructor' });
    expect(snap().context.following).toBe('constructor');
  });

  it('on a lost channel forgets peers and follow mode and shows why, until it joins again', () => {
    const { channel, actor, snap, peers } = live();
    channel.emit({ type: 'cursor.moved', userId: BOB, at: { x: 1, y: 1 } });
    actor.send({ type: 'presence.follow', userId: BOB });

    channel.emit({ type: 'presence.lost', message: 'The live connection closed' });
    expect(snap().hasTag('offline')).toBe(true);
    expect(snap().hasTag('live')).toBe(false);
    expect(peers()).toEqual({});
    expect(snap().context.following).toBeNull();
    expect(snap().context.error).toBe('The live connection closed');
    // The person's own selection is kept, to publish again.
    expect(snap().context.selection).toEqual([]);

    // A second drop while offline keeps the latest reason.
    channel.emit({ type: 'presence.lost', message: 'Timed out' });
    expect(snap().context.error).toBe('Timed out');

    channel.emit({ type: 'presence.joined' });
    expect(snap().hasTag('live')).toBe(true);
    expect(snap().context.error).toBeNull();
    channel.emit({ type: 'presence.synced', peers: [peer(BOB)] });
    // Fresh: the cursor seen before the drop is not trusted any more.
    expect(peers()[BOB]?.cursor).toBeNull();
    // The same channel actor throughout: the adapter reconnects, the machine does not reopen.
    expect(channel.channels).toEqual({ opened: 1, closed: 0 });
  });
});

describe('observe controls', () => {
  const offered = (userId: string, offer: { followable?: boolean; spotlight?: boolean }, selection: string[] = []) => ({
    ...peer(userId, selection),
    ...offer,
  });

  it('refuses to follow someone who does not let others follow, and stops following when they turn it off', () => {
    const { channel, actor, snap } = live();
    channel.emit({ type: 'presence.synced', peers: [peer(ME), offered(BOB, { followable: false }), peer(EVE)] });
    actor.send({ type: 'presence.follow', userId: BOB });
    expect(snap().context.following).toBeNull();
    actor.send({ type: 'presence.follow', userId: EVE });
    expect(snap().context.following).toBe(EVE);
    channel.emit({
      type: 'presence.synced',
      peers: [peer(ME), offered(BOB, { followable: false }), offered(EVE, { followable: false })],
    });
    expect(snap().context.following).toBeNull();
  });

  it("publishes this person's offer on joining and on each change; refusing ends a spotlight, spotlighting allows following", () => {
    const { channel, actor } = start();
    const offers = () => channel.commands.flatMap((c) => (c.type === 'send.offer' ? [c.offer] : []));
    channel.emit({ type: 'presence.joined' });
    actor.send({ type: 'presence.allowFollow', followable: false });
    actor.send({ type: 'presence.spotlight', on: true });
    actor.send({ type: 'presence.allowFollow', followable: false });
    expect(offers()).toEqual([
      { followable: true, spotlight: false },
      { followable: false, spotlight: false },
      { followable: true, spotlight: true },
      { followable: false, spotlight: false },
    ]);
  });

  it('asks once when a presenter spotlights; following them answers it, and it ends with their spotlight', () => {
    const { channel, actor, snap } = live();
    channel.emit({ type: 'presence.synced', peers: [peer(ME), offered(BOB, { spotlight: true }), peer(EVE)] });
    expect(snap().context.asked).toBe(BOB);
    actor.send({ type: 'presence.acceptSpotlight' });
    expect(snap().context).toMatchObject({ following: BOB, asked: null });
    // A re-sync with the spotlight still on asks nothing more.
    channel.emit({ type: 'presence.synced', peers: [peer(ME), offered(BOB, { spotlight: true }, ['x']), peer(EVE)] });
    expect(snap().context).toMatchObject({ following: BOB, asked: null });
    channel.emit({ type: 'presence.synced', peers: [peer(ME), peer(BOB), peer(EVE)] });
    expect(snap().context).toMatchObject({ following: null, asked: null });
  });

  it('a declined spotlight is not asked again until the presenter starts a new one', () => {
    const { channel, actor, snap } = live();
    const lit = () =>
      channel.emit({ type: 'presence.synced', peers: [peer(ME), offered(BOB, { spotlight: true }), peer(EVE)] });
    lit();
    actor.send({ type: 'presence.declineSpotlight' });
    expect(snap().context).toMatchObject({ asked: null, following: null, declined: [BOB] });
    lit();
    expect(snap().context.asked).toBeNull();
    actor.send({ type: 'presence.acceptSpotlight' });
    expect(snap().context.following).toBeNull();
    channel.emit({ type: 'presence.synced', peers: [peer(ME), peer(BOB), peer(EVE)] });
    expect(snap().context.declined).toEqual([]);
    lit();
    expect(snap().context.asked).toBe(BOB);
  });

  it("never takes an agent's or this person's own spotlight for a presenter", () => {
    const { channel, snap } = live();
    channel.emit({
      type: 'presence.synced',
      peers: [offered(ME, { spotlight: true }), { ...peer(BOB, [], 1, true), spotlight: true }],
    });
    expect(snap().context.asked).toBeNull();
  });
});
