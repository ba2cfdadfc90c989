import type { Observable } from 'rxjs';
import type { Result } from './room.ts';

/** The profile port: one's own display name, colour and avatar. */

export interface OwnProfile {
  id: string;
  displayName: string;
  color: string;
  avatarPath: string | null;
  avatarUrl: string | null;
}

export interface ProfileEdit {
  displayName?: string;
  color?: string;
  avatarPath?: string;
}

/** An upload's life as facts: progress in bytes, then done with the stored path. */
export type UploadFact =
  | { type: 'upload.progressed'; loaded: number; total: number }
  | { type: 'upload.finished'; path: string }
  | { type: 'upload.failed'; code: string; message: string };

/**
 * One's own profile as it stands: once when watching starts (and again after the live
 * connection rejoins, in case a change was missed), then after every saved change, from
 * whichever tab or device saved it.
 */
export type OwnProfileFact = { type: 'profile.changed'; profile: OwnProfile };

export interface AvatarFile {
  /** The browser's File (a Blob with a name and type); tests may pass a Blob-like. */
  file: Blob;
  name: string;
  type: string;
  size: number;
}

export interface ProfilePort {
  load(userId: string): Promise<Result<OwnProfile>>;
  update(userId: string, edit: ProfileEdit): Promise<Result<OwnProfile>>;
  /** Uploads to avatars/<uid>/avatar-<timestamp>.<ext>; completes after `upload.finished` or `upload.failed`. Unsubscribing aborts. */
  uploadAvatar(userId: string, file: AvatarFile): Observable<UploadFact>;
  /** The own profile, live (see `OwnProfileFact`); never errors: a failed read is retried on the next rejoin. */
  watch(userId: string): Observable<OwnProfileFact>;
}

/** The bucket's rules, checked before any byte leaves (the server checks them again). */
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

/** The palette profiles draw from (same as the database's `palette_color`). */
export const PALETTE = [
  { hex: '#e5484d', name: 'Red' },
  { hex: '#f76b15', name: 'Orange' },
  { hex: '#ffc53d', name: 'Amber' },
  { hex: '#46a758', name: 'Green' },
  { hex: '#12a594', name: 'Teal' },
  { hex: '#0090ff', name: 'Blue' },
  { hex: '#3e63dd', name: 'Indigo' },
  { hex: '#8e4ec6', name: 'Purple' },
  { hex: '#d6409f', name: 'Pink' },
  { hex: '#978365', name: 'Bronze' },
] as const;

/** Why a file can't be an avatar, in words for people, or null when it can. */
export function checkAvatar(file: Pick<AvatarFile, 'size' | 'type'>): { code: string; message: string } | null {
  if (!(AVATAR_TYPES as readonly string[]).includes(file.type)) {
    return {
      code: 'wrong_type',
      message: 'That file type isn\u2019t supported. Choose a PNG, JPEG, WebP or GIF image.',
    };
  }
  if (file.size > AVATAR_MAX_BYTES) {
    return {
      code: 'too_big',
      message: `That image is ${(file.size / 1024 / 1024).toFixed(1)} MB; the limit is 2 MB. Choose a smaller one.`,
    };
  }
  return null;
}
