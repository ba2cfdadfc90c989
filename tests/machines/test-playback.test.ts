import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { MAX_PLAYERS, testPlaybackMachine, watchedPlay } from '../../machines/open-machine/test-playback.machine.ts';
import { BOB, EVE, fakePlaybackChannel, MACHINE, ME, playOf, shown } from './test-playback.fakes.ts';

/** The test playback machine with a fake channel: arrange, act, assert. */

function start() {
  const channel = fakePlaybackChannel();
  const actor = createActor(testPlaybackMachine.provide({ actors: channel.actors }), {
    input: { machineId: MACHINE, userId: ME },
  }).start();
  const snap = () => actor.getSnapshot();
  const watched = () => watchedPlay(snap().context);
  return { channel, actor, snap, watched };
}

function live() {
  const started = start();
  started.channel.emit({ type: 'playback.joined' });
  return started;
}

describe('test playback machine', () => {
  it('opens the channel for this machine and person; on joining asks what plays and says what it plays', () => {
    const { channel, actor, snap } = start();
    expect(channel.inputs).toEqual([{ machineId: MACHINE, userId: ME }]);
    expect(snap().hasTag('live')).toBe(false);
    actor.send({ type: 'playback.show', play: shown('path A', 1) });
    channel.emit({ type: 'playback.joined' });
    expect(snap().hasTag('live')).toBe(true);
    expect(channel.commands).toEqual([
      { type: 'send.show', play: shown('path A', 1) },
      { type: 'send.ask' },
      { type: 'send.show', play: shown('path A', 1) },
    ]);
    actor.stop();
    expect(channel.channels).toEqual({ opened: 1, closed: 1 });
  });

  it("sends each step of this person's play and the stop", () => {
    const { channel, actor } = live();
    actor.send({ type: 'playback.show', play: shown('path A', 0) });
    actor.send({ type: 'playback.show', play: shown('path A', 1) });
    actor.send({ type: 'playback.show', play: null });
    expect(channel.commands.slice(2)).toEqual([
      { type: 'send.show', play: shown('path A', 0) },
      { type: 'send.show', play: shown('path A', 1) },
      { type: 'send.show', play: null },
    ]);
  });

  it('answers a question only while it plays something', () => {
    const { channel, actor } = live();
    const before = channel.commands.length;
    channel.emit({ type: 'playback.asked', userId: BOB });
    expect(channel.commands.length).toBe(before);
    actor.send({ type: 'playback.show', play: shown('path A', 2) });
    channel.emit({ type: 'playback.asked', userId: BOB });
    expect(channel.commands.at(-1)).toEqual({ type: 'send.show', play: shown('path A', 2) });
  });

  it("shows the first other person's play, follows its steps and drops it when they stop", () => {
    const { channel, snap, watched } = live();
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob path') });
    channel.emit({ type: 'playback.played', play: playOf(EVE, 'Eve path') });
    expect(watched()).toEqual(playOf(BOB, 'Bob path'));
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob path', 2) });
    expect(watched()?.step).toBe(2);
    expect(snap().context.plays.map((p) => p.userId)).toEqual([BOB, EVE]);
    channel.emit({ type: 'playback.stopped', userId: BOB });
    expect(watched()).toEqual(playOf(EVE, 'Eve path'));
  });

  it("drops a player's play when they leave the channel, and not for this person's own leave", () => {
    const { channel, actor, snap, watched } = live();
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob path', 1) });
    channel.emit({ type: 'playback.played', play: playOf(EVE, 'Eve path') });
    actor.send({ type: 'playback.unwatch', userId: BOB });
    expect(watched()).toEqual(playOf(EVE, 'Eve path'));
    actor.send({ type: 'playback.unwatch', userId: EVE });
    expect(watched()).toBeNull();
    channel.emit({ type: 'playback.left', userId: BOB });
    expect(snap().context.plays.map((p) => p.userId)).toEqual([EVE]);
    expect(snap().context.unwatched).toEqual([EVE]);
    channel.emit({ type: 'playback.left', userId: EVE });
    expect(snap().context).toMatchObject({ plays: [], unwatched: [] });
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob again') });
    channel.emit({ type: 'playback.left', userId: ME });
    expect(watched()).toEqual(playOf(BOB, 'Bob again'));
    expect(snap().hasTag('live')).toBe(true);
  });

  it("ignores this person's own echo", () => {
    const { channel, snap } = live();
    channel.emit({ type: 'playback.played', play: playOf(ME, 'mine') });
    expect(snap().context.plays).toEqual([]);
  });

  it("stops watching one person's play until they play something else or stop", () => {
    const { channel, actor, watched, snap } = live();
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob path') });
    actor.send({ type: 'playback.unwatch', userId: BOB });
    expect(watched()).toBeNull();
    // Bob steps on: still not watched.
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob path', 1) });
    expect(watched()).toBeNull();
    // Bob plays another path: shown again.
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob other path') });
    expect(watched()?.title).toBe('Bob other path');
    actor.send({ type: 'playback.unwatch', userId: BOB });
    channel.emit({ type: 'playback.stopped', userId: BOB });
    expect(snap().context.unwatched).toEqual([]);
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob path') });
    expect(watched()?.userId).toBe(BOB);
  });

  it('forgets every play when the channel drops, and asks again on rejoining', () => {
    const { channel, snap } = live();
    channel.emit({ type: 'playback.played', play: playOf(BOB, 'Bob path') });
    channel.emit({ type: 'playback.lost', message: 'The live connection closed' });
    expect(snap().context.plays).toEqual([]);
    expect(snap().context.error).toBe('The live connection closed');
    expect(snap().hasTag('live')).toBe(false);
    channel.emit({ type: 'playback.joined' });
    expect(snap().context.error).toBeNull();
    expect(channel.commands.filter((c) => c.type === 'send.ask')).toHaveLength(2);
  });

  it(`keeps at most ${MAX_PLAYERS} players`, () => {
    const { channel, snap } = live();
    for (let i = 0; i <= MAX_PLAYERS; i++) channel.emit({ type: 'playback.played', play: playOf(`u-${i}`, 'p') });
    expect(snap().context.plays).toHaveLength(MAX_PLAYERS);
    // A known player still moves on.
    channel.emit({ type: 'playback.played', play: playOf('u-0', 'p', 1) });
    expect(snap().context.plays[0]?.step).toBe(1);
  });
});
