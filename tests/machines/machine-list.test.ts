import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { machineListMachine, type MachineListEmitted } from '../../machines/room/machine-list.machine.ts';
import { fakeMachineList, newMachine, ok, PROJECT, refused, summary } from './machine-list.fakes.ts';

/** The machine list with a fake port: arrange, act, assert. */

function start() {
  const fake = fakeMachineList();
  const actor = createActor(machineListMachine.provide({ actors: fake.actors }), { input: { projectId: PROJECT } });
  const created: MachineListEmitted[] = [];
  actor.on('list.created', (event) => created.push(event));
  actor.start();
  const snap = () => actor.getSnapshot();
  const ids = () => snap().context.machines.map((m) => m.id);
  return { fake, actor, snap, ids, created };
}

/** Loaded with a (edited at :10) and b (edited at :20). */
async function ready() {
  const started = start();
  await started.fake.settle('loadMachines', ok([summary('a', 10), summary('b', 20)]));
  return started;
}

describe('machine list machine', () => {
  it('loads the project’s machines, newest edit first', async () => {
    const { fake, snap, ids } = start();
    expect(snap().hasTag('loading')).toBe(true);
    expect(fake.calls).toEqual([{ name: 'loadMachines', input: { projectId: PROJECT } }]);
    expect(fake.streams.opened).toBe(1);
    // Same edit time: by name, so the order is stable.
    await fake.settle(
      'loadMachines',
      ok([summary('a', 10), summary('c', 30), summary('b', 20), summary('d', 20, { name: 'Aardvark' })]),
    );
    expect(snap().hasTag('ready')).toBe(true);
    expect(snap().hasTag('loading')).toBe(false);
    expect(ids()).toEqual(['c', 'd', 'b', 'a']);
    expect(snap().context.error).toBeNull();
  });

  it('shows why loading failed, and retries on request', async () => {
    const { fake, actor, snap, ids } = start();
    await fake.settle('loadMachines', refused("You don't have access to this project."));
    expect(snap().hasTag('failed')).toBe(true);
    expect(snap().context.error).toBe("You don't have access to this project.");
    actor.send({ type: 'list.retry' });
    expect(snap().hasTag('loading')).toBe(true);
    expect(fake.calls.map((c) => c.name)).toEqual(['loadMachines', 'loadMachines']);
    await fake.settle('loadMachines', ok([summary('a', 10)]));
    expect(snap().hasTag('ready')).toBe(true);
    expect(ids()).toEqual(['a']);
    expect(snap().context.error).toBeNull();
  });

  it('shows a general message when the load itself crashes', async () => {
    const { fake, snap } = start();
    await fake.fail('loadMachines', new Error('socket hang up'));
    expect(snap().hasTag('failed')).toBe(true);
    expect(snap().context.error).toBe("Couldn't load this project's machines.");
  });

  it('reloads when the stream comes back after a failed load', async () => {
    const { fake, snap } = start();
    await fake.settle('loadMachines', refused('Network down'));
    fake.emit({ type: 'machines.subscribed' });
    expect(snap().hasTag('loading')).toBe(true);
    expect(fake.isOpen('loadMachines')).toBe(true);
  });

  it('applies live upserts and deletes, newest edit first', async () => {
    const { fake, ids, snap } = await ready();
    expect(ids()).toEqual(['b', 'a']);
    fake.emit({ type: 'machines.upserted', machine: summary('c', 15) });
    expect(ids()).toEqual(['b', 'c', 'a']);
    // An edit moves a machine to the top.
    fake.emit({ type: 'machines.upserted', machine: summary('a', 40, { version: 2, name: 'Renamed' }) });
    expect(ids()).toEqual(['a', 'b', 'c']);
    expect(snap().context.machines[0]?.name).toBe('Renamed');
    fake.emit({ type: 'machines.deleted', machineId: 'b' });
    expect(ids()).toEqual(['a', 'c']);
    // Deleting what is not there is harmless (the echo of one's own delete, say).
    fake.emit({ type: 'machines.deleted', machineId: 'b' });
    expect(ids()).toEqual(['a', 'c']);
    // Losing the stream changes nothing by itself: the list stays as it was seen.
    fake.emit({ type: 'machines.lost' });
    expect(ids()).toEqual(['a', 'c']);
    expect(snap().hasTag('ready')).toBe(true);
  });

  it('never lets a stale version replace a newer one', async () => {
    const { fake, snap } = await ready();
    fake.emit({ type: 'machines.upserted', machine: summary('a', 50, { version: 3, name: 'Third' }) });
    // A late event of an older version.
    fake.emit({ type: 'machines.upserted', machine: summary('a', 45, { version: 2, name: 'Second' }) });
    expect(snap().context.machines.find((m) => m.id === 'a')).toMatchObject({ version: 3, name: 'Third' });
    // The same version again (a rename does not bump it) is taken.
    fake.emit({ type: 'machines.upserted', machine: summary('a', 55, { version: 3, name: 'Third, renamed' }) });
    expect(snap().context.machines.find((m) => m.id === 'a')).toMatchObject({ version: 3, name: 'Third, renamed' });
    expect(snap().context.machines.filter((m) => m.id === 'a')).toHaveLength(1);
  });

  it('reloads when the stream is back, keeping the list on screen meanwhile', async () => {
    const { fake, snap, ids } = await ready();
    fake.emit({ type: 'machines.subscribed' });
    expect(snap().hasTag('loading')).toBe(true);
    expect(ids()).toEqual(['b', 'a']);
    expect(fake.calls.map((c) => c.name)).toEqual(['loadMachines', 'loadMachines']);
    // What changed while the stream was away is only in the table.
    await fake.settle('loadMachines', ok([summary('a', 10), summary('n', 30)]));
    expect(snap().hasTag('ready')).toBe(true);
    expect(ids()).toEqual(['n', 'a']);
    // The stream itself is one subscription for the machine's whole life.
    expect(fake.streams).toEqual({ opened: 1, closed: 0 });
  });

  it('keeps the list when a reload fails', async () => {
    const { fake, snap, ids } = await ready();
    fake.emit({ type: 'machines.subscribed' });
    await fake.settle('loadMachines', refused('Network down'));
    expect(snap().hasTag('failed')).toBe(true);
    expect(snap().context.error).toBe('Network down');
    expect(ids()).toEqual(['b', 'a']);
  });

  it('reads again when the stream goes live while a read is in flight', async () => {
    const { fake, snap, ids } = start();
    // The first read was sent before the stream was live: a change in between is in neither.
    fake.emit({ type: 'machines.subscribed' });
    expect(snap().hasTag('loading')).toBe(true);
    expect(fake.calls.map((c) => c.name)).toEqual(['loadMachines', 'loadMachines']);
    await fake.settle('loadMachines', ok([summary('a', 10), summary('n', 12)]));
    expect(snap().hasTag('ready')).toBe(true);
    expect(ids()).toEqual(['n', 'a']);
  });

  it('keeps changes streamed during a read that its answer predates', async () => {
    const { fake, snap, ids } = start();
    fake.emit({ type: 'machines.upserted', machine: summary('a', 30, { version: 2, name: 'Renamed' }) });
    fake.emit({ type: 'machines.upserted', machine: summary('n', 31) });
    fake.emit({ type: 'machines.deleted', machineId: 'b' });
    // The read's answer was taken before those three changes.
    await fake.settle('loadMachines', ok([summary('a', 10), summary('b', 20)]));
    expect(ids()).toEqual(['n', 'a']);
    expect(snap().context.machines.find((m) => m.id === 'a')).toMatchObject({ version: 2, name: 'Renamed' });

    // A reload's answer taken after them is not undone by them.
    fake.emit({ type: 'machines.subscribed' });
    fake.emit({ type: 'machines.upserted', machine: summary('a', 40, { version: 3, name: 'Third' }) });
    await fake.settle('loadMachines', ok([summary('a', 50, { version: 4, name: 'Fourth' }), summary('n', 31)]));
    expect(snap().context.machines.find((m) => m.id === 'a')).toMatchObject({ version: 4, name: 'Fourth' });
    expect(snap().context.sinceLoad).toEqual([]);
  });

  it('finishes a create when the stream comes back meanwhile, then reloads', async () => {
    const { fake, actor, snap, ids, created } = await ready();
    actor.send({ type: 'list.create', machines: [newMachine('Door')] });
    fake.emit({ type: 'machines.subscribed' });
    // The create is not abandoned: its answer still opens the new machine.
    expect(snap().hasTag('busy')).toBe(true);
    expect(fake.isOpen('loadMachines')).toBe(false);
    await fake.settle('createMachines', ok([summary('d', 31)]));
    expect(created).toEqual([{ type: 'list.created', machines: [summary('d', 31)] }]);
    // Then the catch-up read.
    expect(snap().hasTag('loading')).toBe(true);
    expect(ids()).toEqual(['d', 'b', 'a']);
    await fake.settle('loadMachines', ok([summary('d', 31), summary('x', 32), summary('a', 10), summary('b', 20)]));
    expect(ids()).toEqual(['x', 'd', 'b', 'a']);
    // Once only.
    expect(snap().hasTag('ready')).toBe(true);
    expect(fake.isOpen('loadMachines')).toBe(false);
  });

  it('shows a failed delete even when the stream came back meanwhile', async () => {
    const { fake, actor, snap } = await ready();
    actor.send({ type: 'list.delete', machineId: 'a' });
    fake.emit({ type: 'machines.subscribed' });
    await fake.settle('deleteMachine', refused('Only editors can delete machines.'));
    expect(snap().context.error).toBe('Only editors can delete machines.');
    expect(snap().hasTag('loading')).toBe(true);
  });

  it('renames a machine, ignoring a blank name', async () => {
    const { fake, actor, snap } = await ready();
    expect(snap().can({ type: 'list.rename', machineId: 'a', name: '   ' })).toBe(false);
    actor.send({ type: 'list.rename', machineId: 'a', name: '  Door  ' });
    expect(snap().hasTag('busy')).toBe(true);
    expect(fake.calls.at(-1)).toEqual({ name: 'renameMachine', input: { machineId: 'a', name: 'Door' } });
    await fake.settle('renameMachine', ok(summary('a', 10, { name: 'Door' })));
    expect(snap().context.machines.find((m) => m.id === 'a')?.name).toBe('Door');
    expect(snap().hasTag('busy')).toBe(false);

    actor.send({ type: 'list.rename', machineId: 'a', name: 'Gate' });
    await fake.settle('renameMachine', refused('Viewers cannot rename machines.'));
    expect(snap().context.error).toBe('Viewers cannot rename machines.');
    expect(snap().context.machines.find((m) => m.id === 'a')?.name).toBe('Door');
    actor.send({ type: 'list.rename', machineId: 'a', name: 'Gate' });
    await fake.fail('renameMachine', new Error('fetch failed'));
    expect(snap().context.error).toBe("Couldn't rename the machine.");
  });

  it('ignores a create of no machines', async () => {
    const { fake, actor, snap } = await ready();
    expect(snap().can({ type: 'list.create', machines: [] })).toBe(false);
    actor.send({ type: 'list.create', machines: [] });
    expect(snap().hasTag('busy')).toBe(false);
    expect(fake.isOpen('createMachines')).toBe(false);
  });

  it('creates machines, announces them and lists them', async () => {
    const { fake, actor, snap, ids, created } = await ready();
    const machines = [newMachine('Traffic light'), newMachine('Door')];
    actor.send({ type: 'list.create', machines });
    expect(snap().hasTag('busy')).toBe(true);
    expect(fake.calls.at(-1)).toEqual({ name: 'createMachines', input: { projectId: PROJECT, machines } });
    // One at a time: nothing else starts while busy.
    expect(snap().can({ type: 'list.create', machines })).toBe(false);
    expect(snap().can({ type: 'list.delete', machineId: 'a' })).toBe(false);

    const made = [summary('t', 30, { name: 'Traffic light' }), summary('d', 31, { name: 'Door' })];
    await fake.settle('createMachines', ok(made));
    expect(snap().hasTag('busy')).toBe(false);
    expect(snap().hasTag('ready')).toBe(true);
    expect(created).toEqual([{ type: 'list.created', machines: made }]);
    expect(ids()).toEqual(['d', 't', 'b', 'a']);
  });

  it('does not list a created machine twice when its live event came first', async () => {
    const { fake, actor, ids } = await ready();
    actor.send({ type: 'list.create', machines: [newMachine('Door')] });
    fake.emit({ type: 'machines.upserted', machine: summary('d', 31) });
    await fake.settle('createMachines', ok([summary('d', 31)]));
    expect(ids()).toEqual(['d', 'b', 'a']);
  });

  it('shows a refused create and stays usable', async () => {
    const { fake, actor, snap, ids, created } = await ready();
    actor.send({ type: 'list.create', machines: [newMachine('Door')] });
    await fake.settle('createMachines', refused('Viewers cannot create machines.'));
    expect(snap().context.error).toBe('Viewers cannot create machines.');
    expect(snap().hasTag('ready')).toBe(true);
    expect(snap().hasTag('busy')).toBe(false);
    expect(created).toEqual([]);
    expect(ids()).toEqual(['b', 'a']);

    actor.send({ type: 'list.create', machines: [newMachine('Door')] });
    await fake.fail('createMachines', new Error('fetch failed'));
    expect(snap().context.error).toBe("Couldn't create the machine.");

    actor.send({ type: 'list.dismissError' });
    expect(snap().context.error).toBeNull();
    actor.send({ type: 'list.create', machines: [newMachine('Door')] });
    await fake.settle('createMachines', ok([summary('d', 31)]));
    expect(ids()).toEqual(['d', 'b', 'a']);
    expect(created).toHaveLength(1);
  });

  it('deletes a machine', async () => {
    const { fake, actor, snap, ids } = await ready();
    actor.send({ type: 'list.delete', machineId: 'a' });
    expect(snap().hasTag('busy')).toBe(true);
    expect(fake.calls.at(-1)).toEqual({ name: 'deleteMachine', input: { machineId: 'a' } });
    await fake.settle('deleteMachine', ok('a'));
    expect(snap().hasTag('busy')).toBe(false);
    expect(ids()).toEqual(['b']);
    expect(snap().context.error).toBeNull();
  });

  it('shows a refused delete, keeping the machine', async () => {
    const { fake, actor, snap, ids } = await ready();
    actor.send({ type: 'list.delete', machineId: 'a' });
    await fake.settle('deleteMachine', refused('Only editors can delete machines.'));
    expect(snap().context.error).toBe('Only editors can delete machines.');
    expect(ids()).toEqual(['b', 'a']);
    expect(snap().hasTag('busy')).toBe(false);

    actor.send({ type: 'list.delete', machineId: 'a' });
    await fake.fail('deleteMachine', new Error('fetch failed'));
    expect(snap().context.error).toBe("Couldn't delete the machine.");
    expect(ids()).toEqual(['b', 'a']);
    // A later success clears the message.
    actor.send({ type: 'list.delete', machineId: 'b' });
    await fake.settle('deleteMachine', ok('b'));
    expect(snap().context.error).toBeNull();
    expect(ids()).toEqual(['a']);
  });

  it('creates and deletes only from a loaded list', async () => {
    const { fake, actor, snap } = start();
    actor.send({ type: 'list.create', machines: [newMachine('Door')] });
    actor.send({ type: 'list.delete', machineId: 'a' });
    expect(fake.calls.map((c) => c.name)).toEqual(['loadMachines']);
    await fake.settle('loadMachines', refused('Network down'));
    expect(snap().can({ type: 'list.create', machines: [newMachine('Door')] })).toBe(false);
    expect(snap().can({ type: 'list.delete', machineId: 'a' })).toBe(false);
  });

  it('stops its stream when stopped', async () => {
    const { fake, actor } = await ready();
    actor.stop();
    expect(fake.streams).toEqual({ opened: 1, closed: 1 });
  });
});
