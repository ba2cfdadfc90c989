import { createActorContext } from '@xstate/react';
import { useCallback } from 'react';
import { profileMachine, type ProfileIntent } from '../../../machines/account/profile.machine.ts';
import type { OwnProfile } from '../../lib/ports/profile.ts';

/** The profile actor for the React tree, read through one-slice hooks. */
export const ProfileContext = createActorContext(profileMachine);

export type ProfileStatus = 'loading' | 'failed' | 'ready';
export type AvatarStatus = 'idle' | 'uploading' | 'uploaded' | 'failed';

export function useProfileStatus(): ProfileStatus {
  return ProfileContext.useSelector((s): ProfileStatus =>
    s.hasTag('failed') ? 'failed' : s.hasTag('loading') ? 'loading' : 'ready',
  );
}
export function useOwnProfile(): OwnProfile | null {
  return ProfileContext.useSelector((s) => s.context.profile);
}
export function useProfileLoadError(): string | null {
  return ProfileContext.useSelector((s) => s.context.loadError);
}
export function useSaveState(): { saving: boolean; saved: boolean; error: string | null } {
  const saving = ProfileContext.useSelector((s) => s.hasTag('saving'));
  const saved = ProfileContext.useSelector((s) => s.hasTag('saved'));
  const error = ProfileContext.useSelector((s) => s.context.saveError);
  return { saving, saved, error };
}
export function useAvatarStatus(): AvatarStatus {
  return ProfileContext.useSelector((s): AvatarStatus =>
    s.hasTag('uploading')
      ? 'uploading'
      : s.hasTag('uploaded')
        ? 'uploaded'
        : s.hasTag('uploadFailed')
          ? 'failed'
          : 'idle',
  );
}
export function useUploadProgress(): { loaded: number; total: number } {
  return ProfileContext.useSelector(
    (s) => s.context.progress,
    (a, b) => a.loaded === b.loaded && a.total === b.total,
  );
}
export function useUploadError(): string | null {
  return ProfileContext.useSelector((s) => s.context.uploadError);
}
export function useCanRetryUpload(): boolean {
  return ProfileContext.useSelector((s) => s.can({ type: 'avatar.retry' }));
}
export function useProfileSend(): (intent: ProfileIntent) => void {
  const actor = ProfileContext.useActorRef();
  return useCallback((intent: ProfileIntent) => actor.send(intent), [actor]);
}
