import { createActor, fromCallback } from 'xstate';
import { describe, expect, it } from 'vitest';
import { simulationMachine } from '../../machines/open-machine/simulation.machine.ts';
import { entry, fakeSimulationPort, MACHINE, ok, refused, settle, simulation } from './simulation.fakes.ts';

/** The simulation statechart with a fake port: arrange, act, assert. */

function start(canSend = true) {
  const fake = fakeSimulationPort();
  const actor = createActor(simulationMachine.provide({ actors: fake.actors }), {
    input: { machineId: MACHINE, canSend },
  }).start();
  return { fake, actor };
}

const steps = (actor: ReturnType<typeof start>['actor']) =>
  actor.getSnapshot().context.trace?.steps.map((s) => s.activePaths.join()) ?? [];

describe('simulation machine', () => {
  it('a late joiner opens the running simulation and replays its log', async () => {
    const { fake, actor } = start();
    await fake.settle('listSimulations', ok([simulation('old', { status: 'ended' }), simulation('a')].reverse()));
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    expect(fake.streams.logOpened).toEqual(['a']);
    await fake.settle('loadLog', ok([entry(1), entry(2, null)]));
    expect(actor.getSnapshot().hasTag('live')).toBe(true);
    expect(steps(actor)).toEqual(['idle', 'busy', 'idle']);
  });

  it('resyncs from the log when the stream shows a gap, and applies what it missed in order', async () => {
    const { fake, actor } = start();
    await fake.settle('listSimulations', ok([simulation('a')]));
    await fake.settle('loadLog', ok([]));
    fake.emitLog({ type: 'simlog.received', entries: [entry(2, null)] });
    await settle();
    expect(actor.getSnapshot().hasTag('syncing')).toBe(true);
    expect(fake.calls.at(-1)).toEqual({ name: 'loadLog', input: { simulationId: 'a', after: 0 } });
    await fake.settle('loadLog', ok([entry(1), entry(2, null)]));
    expect(steps(actor)).toEqual(['idle', 'busy', 'idle']);
    expect(actor.getSnapshot().hasTag('live')).toBe(true);
  });

  it('sends in the order made, one request at a time, with the guard switches of the moment', async () => {
    const { fake, actor } = start();
    await fake.settle('listSimulations', ok([simulation('a')]));
    actor.send({ type: 'sim.setGuard', name: 'ready', value: true });
    actor.send({ type: 'sim.send', eventType: 'GO', payload: { n: 1 } });
    actor.send({ type: 'sim.advanceTime' });
    expect(fake.calls.filter((c) => c.name === 'sendEvent')).toHaveLength(1);
    await fake.settle('sendEvent', refused('Too many events at once.'));
    expect(actor.getSnapshot().context.error).toBe('Too many events at once.');
    await fake.settle('sendEvent', ok({ seq: 1 }));
    expect(fake.calls.filter((c) => c.name === 'sendEvent').map((c) => c.input)).toEqual([
      { simulationId: 'a', kind: 'event', type: 'GO', payload: { n: 1 }, guards: { ready: true } },
      { simulationId: 'a', kind: 'time', type: null, payload: {}, guards: { ready: true } },
    ]);
  });

  it('a guest watching cannot send or start', async () => {
    const { fake, actor } = start(false);
    await fake.settle('listSimulations', ok([]));
    actor.send({ type: 'sim.start', context: null });
    expect(actor.getSnapshot().hasTag('idle')).toBe(true);
    fake.emitList({ type: 'sims.started', simulation: simulation('b') });
    await settle();
    actor.send({ type: 'sim.send', eventType: 'GO', payload: {} });
    expect(fake.isOpen('sendEvent')).toBe(false);
    expect(actor.getSnapshot().context.simulation?.id).toBe('b');
  });

  it('replays: step back, step forward, scrub, play to the live end; forks from the shown step', async () => {
    const { fake, actor } = start();
    await fake.settle('listSimulations', ok([simulation('a')]));
    await fake.settle('loadLog', ok([entry(1), entry(2, null), entry(3)]));
    actor.send({ type: 'sim.stepBack' });
    actor.send({ type: 'sim.stepBack' });
    expect(actor.getSnapshot().context.position).toBe(1);
    actor.send({ type: 'sim.stepForward' });
    expect(actor.getSnapshot().context.position).toBe(2);
    actor.send({ type: 'sim.fork' });
    expect(fake.calls.at(-1)).toEqual({
      name: 'forkSimulation',
      input: { simulationId: 'a', uptoSeq: 2, latest: false },
    });
    await fake.settle('forkSimulation', ok(simulation('f', { forkedFrom: 'a', forkedAtSeq: 2, lastSeq: 2 })));
    expect(actor.getSnapshot().context).toMatchObject({ simulation: { id: 'f' }, position: null });
    expect(fake.streams.logOpened).toEqual(['a', 'f']);
  });

  it('someone else starting a simulation switches everyone to it', async () => {
    const { fake, actor } = start();
    await fake.settle('listSimulations', ok([simulation('a')]));
    await fake.settle('loadLog', ok([entry(1)]));
    fake.emitList({ type: 'sims.started', simulation: simulation('b') });
    await settle();
    expect(actor.getSnapshot().context.simulation?.id).toBe('b');
    expect(steps(actor)).toEqual(['idle']);
    expect(fake.streams.logClosed).toBe(1);
  });

  it('following a fork from a longer simulation reads the new log from its start and shows only its steps', async () => {
    const { fake, actor } = start();
    await fake.settle('listSimulations', ok([simulation('a')]));
    await fake.settle('loadLog', ok([entry(1), entry(2, null), entry(3), entry(4, null)]));
    expect(actor.getSnapshot().context.log.ready).toBe(4);
    // Someone forked at step 3 while this person was still reading the old log again.
    fake.emitLog({ type: 'simlog.subscribed' });
    await settle();
    expect(fake.isOpen('loadLog')).toBe(true);
    fake.emitList({
      type: 'sims.started',
      simulation: simulation('f', { forkedFrom: 'a', forkedAtSeq: 3, lastSeq: 3 }),
    });
    await settle();
    expect(fake.calls.at(-1)).toEqual({ name: 'loadLog', input: { simulationId: 'f', after: 0 } });
    expect(actor.getSnapshot().context.log.ready).toBe(0);
    await fake.settle('loadLog', ok([entry(1), entry(2, null), entry(3)]));
    expect(actor.getSnapshot().context.log.ready).toBe(3);
    expect(steps(actor)).toEqual(['idle', 'busy', 'idle', 'busy']);
    // The channel of the new log joins: read again after what is known.
    fake.emitLog({ type: 'simlog.subscribed' });
    await settle();
    expect(fake.calls.at(-1)).toEqual({ name: 'loadLog', input: { simulationId: 'f', after: 3 } });
  });
});

describe('following the presenter', () => {
  function hosted() {
    const fake = fakeSimulationPort();
    const told: string[] = [];
    const host = createActor(
      fromCallback(({ receive }) => receive((e: { type: string }) => told.push(e.type))),
    ).start();
    const actor = createActor(simulationMachine.provide({ actors: fake.actors }), {
      input: { machineId: MACHINE, canSend: true, host },
    }).start();
    return { fake, actor, told };
  }
  const look = (simulationId: string, position: number | null) => ({ simulationId, position });

  it('shows the followed step live, back to the live end with them, and stops following on a step of its own', async () => {
    const { fake, actor, told } = hosted();
    await fake.settle('listSimulations', ok([simulation('a')]));
    await fake.settle('loadLog', ok([entry(1), entry(2, null), entry(3), entry(4, null)]));
    actor.send({ type: 'sim.followed', replay: look('a', 3) });
    expect(actor.getSnapshot().context.position).toBe(3);
    actor.send({ type: 'sim.followed', replay: look('a', 1) });
    expect(actor.getSnapshot().context.position).toBe(1);
    actor.send({ type: 'sim.followed', replay: look('a', null) });
    expect(actor.getSnapshot().context.position).toBeNull();
    actor.send({ type: 'sim.followed', replay: look('a', 2) });
    expect(told).toEqual([]);

    // The person steps themself: following ends here, and the host is told (once).
    actor.send({ type: 'sim.stepBack' });
    expect(actor.getSnapshot().context).toMatchObject({ position: 1, followed: null });
    expect(told).toEqual(['machine.replayChosen']);
    actor.send({ type: 'sim.stepForward' });
    expect(told).toEqual(['machine.replayChosen']);
  });

  it('a followed step of another simulation shows once that simulation opens here', async () => {
    const { fake, actor } = hosted();
    await fake.settle('listSimulations', ok([simulation('a')]));
    await fake.settle('loadLog', ok([entry(1), entry(2, null)]));
    actor.send({ type: 'sim.followed', replay: look('f', 1) });
    expect(actor.getSnapshot().context.position).toBeNull();
    fake.emitList({ type: 'sims.started', simulation: simulation('f', { forkedFrom: 'a', forkedAtSeq: 2 }) });
    await settle();
    expect(actor.getSnapshot().context).toMatchObject({ simulation: { id: 'f' }, position: 1 });
  });

  it('following pauses a play, and playing, scrubbing or sending stops following', async () => {
    const { fake, actor, told } = hosted();
    await fake.settle('listSimulations', ok([simulation('a')]));
    await fake.settle('loadLog', ok([entry(1), entry(2, null), entry(3)]));
    actor.send({ type: 'sim.play' });
    expect(actor.getSnapshot().hasTag('playing')).toBe(true);
    actor.send({ type: 'sim.followed', replay: look('a', 2) });
    expect(actor.getSnapshot().hasTag('playing')).toBe(false);
    expect(actor.getSnapshot().context.position).toBe(2);
    actor.send({ type: 'sim.play' });
    expect(told).toEqual(['machine.replayChosen']);
    actor.send({ type: 'sim.followed', replay: look('a', 1) });
    actor.send({ type: 'sim.scrub', step: 0 });
    actor.send({ type: 'sim.followed', replay: look('a', 2) });
    actor.send({ type: 'sim.send', eventType: 'GO', payload: {} });
    expect(told).toEqual(['machine.replayChosen', 'machine.replayChosen', 'machine.replayChosen']);
    expect(actor.getSnapshot().context).toMatchObject({ position: null, followed: null });
    // No longer following (null): the step shown stays the person's own.
    actor.send({ type: 'sim.followed', replay: null });
    expect(actor.getSnapshot().context.position).toBeNull();
  });
});

describe('membership', () => {
  it('a guest who becomes a member may send', async () => {
    const { fake, actor } = start(false);
    await fake.settle('listSimulations', ok([simulation('a')]));
    actor.send({ type: 'sim.send', eventType: 'GO', payload: {} });
    expect(fake.isOpen('sendEvent')).toBe(false);
    actor.send({ type: 'sim.canSendChanged', canSend: true });
    actor.send({ type: 'sim.send', eventType: 'GO', payload: {} });
    expect(fake.isOpen('sendEvent')).toBe(true);
  });
});

describe('a send that cannot be sent', () => {
  it('a guest sending (from the diagram or anywhere) sends nothing and is told why', async () => {
    const { fake, actor } = start(false);
    await fake.settle('listSimulations', ok([simulation('a')]));
    actor.send({ type: 'sim.send', eventType: 'GO', payload: {} });
    expect(fake.isOpen('sendEvent')).toBe(false);
    expect(actor.getSnapshot().context.outbox).toEqual([]);
    expect(actor.getSnapshot().context.error).toBe('You are watching: members send events.');
  });

  it('a member sending with no simulation, or an ended one, is told why', async () => {
    const { fake, actor } = start();
    await fake.settle('listSimulations', ok([]));
    actor.send({ type: 'sim.send', eventType: 'GO', payload: {} });
    expect(actor.getSnapshot().context.error).toBe('No simulation is running: press Simulate first.');
    fake.emitList({ type: 'sims.started', simulation: simulation('b', { status: 'ended' }) });
    await settle();
    actor.send({ type: 'sim.advanceTime' });
    expect(fake.isOpen('sendEvent')).toBe(false);
    expect(actor.getSnapshot().context.error).toBe('This simulation has ended: fork it to go on.');
  });
});
