import { Subject } from 'rxjs';
import { vi } from 'vitest';
import { fromEventObservable, fromPromise } from 'xstate';
import type { AvatarFile, OwnProfile, ProfileEdit, UploadFact } from '../../src/lib/ports/profile.ts';
import type { Result } from '../../src/lib/ports/room.ts';

/**
 * A fake profile adapter. The two saves (details, avatar path) share one actor source, so
 * open requests are told apart by what they change; uploads are a Subject the test drives.
 */
export type ProfileRequest = 'loadProfile' | 'saveDetails' | 'attachAvatar';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function fakeProfile() {
  const pending = new Map<ProfileRequest, Pending>();
  const uploads = new Subject<UploadFact>();
  const calls: { name: ProfileRequest | 'uploadAvatar'; input: unknown }[] = [];
  const hold = <T>(name: ProfileRequest, input: unknown) =>
    new Promise<T>((resolve, reject) => {
      calls.push({ name, input });
      pending.set(name, { resolve: resolve as (value: unknown) => void, reject });
    });
  const take = (name: ProfileRequest) => {
    const open = pending.get(name);
    if (!open) throw new Error(`no ${name} request is open`);
    pending.delete(name);
    return open;
  };
  return {
    actors: {
      loadProfile: fromPromise<Result<OwnProfile>, { userId: string }>(({ input }) => hold('loadProfile', input)),
      saveProfile: fromPromise<Result<OwnProfile>, { userId: string; edit: ProfileEdit }>(({ input }) =>
        hold(input.edit.avatarPath !== undefined ? 'attachAvatar' : 'saveDetails', input),
      ),
      uploadAvatar: fromEventObservable<UploadFact, { userId: string; file: AvatarFile }>(({ input }) => {
        calls.push({ name: 'uploadAvatar', input });
        return uploads;
      }),
    },
    calls,
    isOpen: (name: ProfileRequest) => pending.has(name),
    emit: (fact: UploadFact) => uploads.next(fact),
    async settle(name: ProfileRequest, output: unknown) {
      take(name).resolve(output);
      await flush();
    },
    async fail(name: ProfileRequest, error: unknown) {
      take(name).reject(error);
      await flush();
    },
  };
}

export async function flush(): Promise<void> {
  if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
  else await new Promise((resolve) => setTimeout(resolve, 0));
}

export const ada: OwnProfile = { id: 'u1', displayName: 'Ada', color: '#0090ff', avatarPath: null, avatarUrl: null };
export const png: AvatarFile = {
  file: new Blob(['x'], { type: 'image/png' }),
  name: 'me.png',
  type: 'image/png',
  size: 1000,
};
