import { describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { profileMachine, type ProfileEvent } from '../../machines/account/profile.machine.ts';
import type { UploadFact } from '../../src/lib/ports/profile.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';
import { ada, fakeProfile, flush, png, type ProfileRequest } from './profile.fakes.ts';

/** The profile machine: examples, then every path and edge of its graph with the fakes. */

type Snapshot = SnapshotFrom<typeof profileMachine>;

function start() {
  const fake = fakeProfile();
  const actor = createActor(profileMachine.provide({ actors: fake.actors }), { input: { userId: 'u1' } }).start();
  return { fake, actor, snap: () => actor.getSnapshot() };
}

describe('profile machine', () => {
  it('loads, saves name and colour, and shows a refused save', async () => {
    const { fake, actor, snap } = start();
    await fake.settle('loadProfile', { ok: true, value: ada });
    actor.send({ type: 'profile.save', displayName: 'Ada L', color: '#12a594' });
    expect(snap().hasTag('saving')).toBe(true);
    expect(fake.calls.at(-1)).toEqual({
      name: 'saveDetails',
      input: { userId: 'u1', edit: { displayName: 'Ada L', color: '#12a594' } },
    });
    await fake.settle('saveDetails', { ok: true, value: { ...ada, displayName: 'Ada L', color: '#12a594' } });
    expect(snap().hasTag('saved')).toBe(true);
    actor.send({ type: 'profile.save', displayName: '', color: '#12a594' });
    await fake.settle('saveDetails', {
      ok: false,
      error: { code: 'invalid', message: 'A display name has 1 to 80 characters.' },
    });
    expect(snap().hasTag('saved')).toBe(false);
    expect(snap().context.saveError).toBe('A display name has 1 to 80 characters.');
    expect(snap().context.profile?.displayName).toBe('Ada L');
  });

  it('uploads with progress, attaches the file, and retries a failed upload with the same file', async () => {
    const { fake, actor, snap } = start();
    await fake.settle('loadProfile', { ok: true, value: ada });
    actor.send({ type: 'avatar.upload', file: png });
    expect(snap().hasTag('uploading')).toBe(true);
    expect(snap().context.progress).toEqual({ loaded: 0, total: 1000 });
    fake.emit({ type: 'upload.progressed', loaded: 400, total: 1000 });
    expect(snap().context.progress).toEqual({ loaded: 400, total: 1000 });
    fake.emit({ type: 'upload.failed', code: 'network', message: "Can't reach the server." });
    expect(snap().hasTag('uploadFailed')).toBe(true);
    expect(snap().context.uploadError).toBe("Can't reach the server.");
    actor.send({ type: 'avatar.retry' });
    expect(snap().context.uploadError).toBeNull();
    fake.emit({ type: 'upload.finished', path: 'u1/avatar-1.png' });
    expect(fake.calls.at(-1)).toEqual({
      name: 'attachAvatar',
      input: { userId: 'u1', edit: { avatarPath: 'u1/avatar-1.png' } },
    });
    await fake.settle('attachAvatar', {
      ok: true,
      value: { ...ada, avatarPath: 'u1/avatar-1.png', avatarUrl: 'http://x/a.png' },
    });
    expect(snap().hasTag('uploaded')).toBe(true);
    expect(snap().context.profile?.avatarUrl).toBe('http://x/a.png');
  });

  it('fails to load with a message and a retry', async () => {
    const { fake, actor, snap } = start();
    await fake.fail('loadProfile', new Error('bug'));
    expect(snap().context.loadError).toBe('Something went wrong. Try again.');
    actor.send({ type: 'profile.retry' });
    expect(snap().hasTag('loading')).toBe(true);
  });
});

const done = (name: ProfileRequest, output: unknown) => ({ type: `xstate.done.actor.${name}`, output });
const crashed = (name: ProfileRequest) => ({ type: `xstate.error.actor.${name}`, error: new Error('crash') });
const refused = { ok: false, error: { code: 'x', message: 'No' } };
const isUploadFact = (e: { type: string }) => e.type.startsWith('upload.');

const events = [
  done('loadProfile', { ok: true, value: ada }),
  done('loadProfile', refused),
  crashed('loadProfile'),
  { type: 'profile.retry' },
  { type: 'profile.save', displayName: 'A', color: '#e5484d' },
  done('saveDetails', { ok: true, value: ada }),
  done('saveDetails', refused),
  crashed('saveDetails'),
  { type: 'avatar.upload', file: png },
  { type: 'avatar.retry' },
  { type: 'upload.progressed', loaded: 1, total: 1000 },
  { type: 'upload.finished', path: 'u1/a.png' },
  { type: 'upload.failed', code: 'too_big', message: 'Too big' },
  done('attachAvatar', { ok: true, value: ada }),
  done('attachAvatar', refused),
  crashed('attachAvatar'),
] as ProfileEvent[];

const serializeState = (s: Snapshot) =>
  JSON.stringify({
    v: s.value,
    file: s.context.file !== null,
    saveError: s.context.saveError !== null,
    uploadError: s.context.uploadError !== null,
  });
const traversal = {
  events,
  // Upload facts come only from a running upload.
  filterEvents: (s: Snapshot, e: ProfileEvent) => s.can(e) && (!isUploadFact(e) || s.hasTag('uploading')),
  serializeState,
  serializeEvent: (e: ProfileEvent) => JSON.stringify(e),
  input: { userId: 'u1' },
};

async function replay(steps: readonly { type: string; output?: unknown; error?: unknown }[]) {
  const { fake, actor } = start();
  const take = async (event: { type: string; output?: unknown; error?: unknown }) => {
    if (await settleRequest(fake, event)) return;
    if (isUploadFact(event)) {
      fake.emit(event as UploadFact);
      await flush();
    } else actor.send(event as ProfileEvent);
  };
  for (const event of steps) await take(event);
  return actor;
}

describeMachinePaths('profile machine', {
  machine: profileMachine,
  traversal,
  replay,
  observe: (snapshot) => ({ value: snapshot.value, state: serializeState(snapshot) }),
  minEdges: 30,
});
