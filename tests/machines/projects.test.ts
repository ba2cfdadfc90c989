import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { projectsMachine } from '../../machines/account/projects.machine.ts';
import { fakeProjects, flush, project, refused } from './projects.fakes.ts';

/** The projects machine with a fake adapter: arrange, act, assert. */

function start() {
  const fake = fakeProjects();
  const actor = createActor(projectsMachine.provide({ actors: fake.actors }), { input: { userId: 'u1' } }).start();
  const snap = () => actor.getSnapshot();
  const names = () => snap().context.projects.map((p) => p.name);
  return { fake, actor, snap, names };
}

describe('projects machine', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('loads the list, and shows a failure with a retry', async () => {
    const { fake, actor, snap, names } = start();
    expect(snap().hasTag('loading')).toBe(true);
    expect(fake.calls[0]).toEqual({ name: 'listProjects', input: { userId: 'u1' } });
    await fake.settle('listProjects', refused("Can't reach the server."));
    expect(snap().hasTag('failed')).toBe(true);
    expect(snap().context.loadError).toBe("Can't reach the server.");
    actor.send({ type: 'projects.retry' });
    await fake.settle('listProjects', { ok: true, value: [project('a', { name: 'Alpha' })] });
    expect(snap().hasTag('ready')).toBe(true);
    expect(names()).toEqual(['Alpha']);
  });

  it('applies live facts in every mode, even while loading', async () => {
    const { fake, snap, names } = start();
    fake.emit({ type: 'projects.channelJoined' });
    await flush();
    expect(snap().hasTag('live')).toBe(true);
    fake.emit({ type: 'projects.upserted', project: project('b', { name: 'Beta' }) });
    await flush();
    await fake.settle('listProjects', { ok: true, value: [project('a', { name: 'Alpha' })] });
    // The read replaces the list wholesale: it ran after the channel opened, so it holds what the channel saw.
    expect(names()).toEqual(['Alpha']);
    fake.emit({ type: 'projects.upserted', project: project('b', { name: 'Beta' }) });
    fake.emit({ type: 'projects.upserted', project: project('a', { name: 'Alpha 2' }) });
    await flush();
    expect(names()).toEqual(['Beta', 'Alpha 2']);
    fake.emit({ type: 'projects.removed', id: 'b' });
    await flush();
    expect(names()).toEqual(['Alpha 2']);
  });

  it('creates optimistically and replaces the placeholder with the stored project', async () => {
    const { fake, actor, snap, names } = start();
    await fake.settle('listProjects', { ok: true, value: [project('a', { name: 'Alpha' })] });
    actor.send({ type: 'projects.create', project: { name: ' New ', description: 'd', visibility: 'link' } });
    expect(snap().hasTag('busy')).toBe(true);
    expect(names()).toEqual(['New', 'Alpha']);
    expect(snap().context.projects[0]?.id).toBe('pending:1');
    // The live echo may arrive before the request answers; no duplicate either way.
    fake.emit({ type: 'projects.upserted', project: project('n', { name: 'New', createdAt: '2026-11-22T01:00:00Z' }) });
    await flush();
    // The echo takes the placeholder's place at once: the list never shows the project twice.
    expect(snap().context.projects.map((p) => p.id)).toEqual(['n', 'a']);
    await fake.settle('createProject', {
      ok: true,
      value: project('n', { name: 'New', createdAt: '2026-11-22T01:00:00Z' }),
    });
    expect(snap().context.projects.map((p) => p.id)).toEqual(['n', 'a']);
    expect(snap().hasTag('busy')).toBe(false);
  });

  it('rolls back a refused create, rename and delete with the server\u2019s reason', async () => {
    const { fake, actor, snap, names } = start();
    await fake.settle('listProjects', { ok: true, value: [project('a', { name: 'Alpha' })] });

    actor.send({ type: 'projects.create', project: { name: 'X', description: '', visibility: 'private' } });
    await fake.settle('createProject', refused('Guests cannot create projects.'));
    expect(names()).toEqual(['Alpha']);
    expect(snap().context.problem).toBe('Guests cannot create projects.');

    actor.send({ type: 'projects.rename', id: 'a', name: 'Renamed' });
    expect(names()).toEqual(['Renamed']);
    expect(snap().context.problem).toBeNull();
    await fake.settle('updateProject', refused('You may not rename it.'));
    expect(names()).toEqual(['Alpha']);
    expect(snap().context.problem).toBe('You may not rename it.');

    actor.send({ type: 'projects.delete', id: 'a' });
    expect(names()).toEqual([]);
    await fake.fail('deleteProject', new Error('adapter bug'));
    expect(names()).toEqual(['Alpha']);
    expect(snap().context.problem).toBe('Something went wrong. Try again.');
    actor.send({ type: 'projects.dismissError' });
    expect(snap().context.problem).toBeNull();
  });

  it('keeps a newer live name over a rollback', async () => {
    const { fake, actor, names } = start();
    await fake.settle('listProjects', { ok: true, value: [project('a', { name: 'Alpha' })] });
    actor.send({ type: 'projects.rename', id: 'a', name: 'Mine' });
    fake.emit({ type: 'projects.upserted', project: project('a', { name: 'Theirs' }) });
    await flush();
    await fake.settle('updateProject', refused('Conflict'));
    expect(names()).toEqual(['Theirs']);
  });

  it('changes visibility optimistically and ignores requests for unknown projects', async () => {
    const { fake, actor, snap } = start();
    await fake.settle('listProjects', { ok: true, value: [project('a')] });
    expect(snap().can({ type: 'projects.delete', id: 'zzz' })).toBe(false);
    actor.send({ type: 'projects.share', id: 'a', visibility: 'public' });
    expect(snap().context.projects[0]?.visibility).toBe('public');
    expect(fake.calls.at(-1)).toEqual({ name: 'updateProject', input: { id: 'a', edit: { visibility: 'public' } } });
    await fake.settle('updateProject', { ok: true, value: null });
    expect(snap().context.projects[0]?.visibility).toBe('public');
    expect(snap().context.inFlight).toBeNull();
  });

  it('keeps the failed channel for supabase-js to rejoin, and re-reads the list once it is back', async () => {
    const { fake, snap } = start();
    await fake.settle('listProjects', { ok: true, value: [] });
    fake.emit({ type: 'projects.channelFailed', message: 'closed' });
    await flush();
    expect(snap().hasTag('reconnecting')).toBe(true);
    // No channel of its own making: the socket's reconnect (connection machine) brings it back.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fake.subscriptions()).toBe(1);
    fake.emit({ type: 'projects.channelJoined' });
    await flush();
    expect(snap().hasTag('live')).toBe(true);
    expect(snap().hasTag('loading')).toBe(true);
    expect(fake.isOpen('listProjects')).toBe(true);
  });

  it('re-reads the list after a request when the channel recovered while it was in flight', async () => {
    const { fake, actor, snap } = start();
    await fake.settle('listProjects', { ok: true, value: [project('a')] });
    fake.emit({ type: 'projects.channelFailed', message: 'closed' });
    await flush();
    actor.send({ type: 'projects.rename', id: 'a', name: 'Renamed' });
    // Back while the rename is on the wire: what was missed meanwhile is only in the table.
    fake.emit({ type: 'projects.channelJoined' });
    await flush();
    expect(snap().hasTag('busy')).toBe(true);
    expect(fake.isOpen('listProjects')).toBe(false);
    await fake.settle('updateProject', { ok: true, value: null });
    expect(snap().hasTag('loading')).toBe(true);
    expect(fake.isOpen('listProjects')).toBe(true);
    await fake.settle('listProjects', { ok: true, value: [project('a', { name: 'Renamed' }), project('b')] });
    expect(
      snap()
        .context.projects.map((p) => p.id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(snap().hasTag('ready')).toBe(true);
  });
});
