import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, defer, distinctUntilChanged, EMPTY, from, Observable, of, switchMap } from 'rxjs';
import {
  checkAvatar,
  type AvatarFile,
  type OwnProfile,
  type OwnProfileFact,
  type ProfileEdit,
  type ProfilePort,
  type UploadFact,
} from '../../lib/ports/profile.ts';
import type { Result } from '../../lib/ports/room.ts';
import { resolveSupabaseConfig, supabaseClient, type SupabaseConfig } from './client.ts';
import type { Database, Tables } from './database.types.ts';
import { tableChanges } from './realtime.ts';
import { describeDataError } from './room-errors.ts';
import { uploadWithProgress } from './storage.ts';

/** One's own profile row, and the avatar in the public `avatars` bucket. */

type Client = SupabaseClient<Database>;

// supabase-js hands back a closing channel for a topic reused before the server
// acknowledged the close, so each watch (from any adapter over the client) gets its own topic.
let watches = 0;

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

export function createProfileAdapter(client: Client, config: SupabaseConfig): ProfilePort {
  const toProfile = (row: Tables<'profiles'>): OwnProfile => ({
    id: row.id,
    displayName: row.display_name,
    color: row.color,
    avatarPath: row.avatar_path,
    avatarUrl: row.avatar_path ? client.storage.from('avatars').getPublicUrl(row.avatar_path).data.publicUrl : null,
  });

  const answer = (data: Tables<'profiles'> | null, error: unknown, action: string): Result<OwnProfile> => {
    if (error) return { ok: false, error: describeDataError(error, action) };
    if (!data)
      return {
        ok: false,
        error: { code: 'not_found', message: 'Your profile could not be found. Sign out and in again.' },
      };
    return { ok: true, value: toProfile(data) };
  };

  const adapter: ProfilePort = {
    async load(userId) {
      try {
        const { data, error } = await client.from('profiles').select('*').eq('id', userId).maybeSingle();
        return answer(data, error, 'load your profile');
      } catch (error) {
        return { ok: false, error: describeDataError(error, 'load your profile') };
      }
    },

    async update(userId, edit: ProfileEdit) {
      const patch: Database['public']['Tables']['profiles']['Update'] = {};
      if (edit.displayName !== undefined) {
        const name = edit.displayName.trim();
        if (name.length === 0 || name.length > 80)
          return { ok: false, error: { code: 'invalid', message: 'A display name has 1 to 80 characters.' } };
        patch.display_name = name;
      }
      if (edit.color !== undefined) patch.color = edit.color;
      if (edit.avatarPath !== undefined) patch.avatar_path = edit.avatarPath;
      try {
        const { data, error } = await client.from('profiles').update(patch).eq('id', userId).select('*').maybeSingle();
        return answer(data, error, 'save your profile');
      } catch (error) {
        return { ok: false, error: describeDataError(error, 'save your profile') };
      }
    },

    uploadAvatar(userId, file: AvatarFile): Observable<UploadFact> {
      const refused = checkAvatar(file);
      if (refused) return of({ type: 'upload.failed', ...refused });
      const path = `${userId}/avatar-${Date.now()}.${EXTENSIONS[file.type] ?? 'img'}`;
      return from(client.auth.getSession()).pipe(
        switchMap(({ data }) => {
          const token = data.session?.access_token;
          if (!token)
            return of<UploadFact>({
              type: 'upload.failed',
              code: 'not_signed_in',
              message: 'Sign in again to upload an avatar.',
            });
          return uploadWithProgress({
            url: config.url,
            anonKey: config.anonKey,
            accessToken: token,
            bucket: 'avatars',
            path,
            body: file.file,
            contentType: file.type,
          });
        }),
      );
    },

    watch(userId): Observable<OwnProfileFact> {
      const changed = (profile: OwnProfile): OwnProfileFact => ({ type: 'profile.changed', profile });
      return defer(() =>
        tableChanges(client, `own-profile:${userId}:${++watches}`, [{ table: 'profiles', filter: `id=eq.${userId}` }]),
      ).pipe(
        // In order, so a read that started before a change cannot overwrite it.
        concatMap((fact) => {
          // (Re)joined: read the row, so nothing saved while we were away is missed.
          if (fact.type === 'status' && fact.status === 'subscribed') {
            return from(adapter.load(userId)).pipe(
              concatMap((result) => (result.ok ? of(changed(result.value)) : EMPTY)),
            );
          }
          if (fact.type === 'change' && fact.change.kind !== 'delete') return of(changed(toProfile(fact.change.row)));
          // A failed or closed channel rejoins by itself (supabase-js); the name shown meanwhile stays.
          return EMPTY;
        }),
        // A rejoin reads the row again: say so only when something in it changed.
        distinctUntilChanged((a, b) => JSON.stringify(a.profile) === JSON.stringify(b.profile)),
      );
    },
  };
  return adapter;
}

/** The adapter over the app's one browser client and its resolved configuration. */
export function liveProfileAdapter(): ProfilePort {
  const runtime = typeof window === 'undefined' ? undefined : window.__CHARTROOM_CONFIG__;
  const config = resolveSupabaseConfig(import.meta.env as Record<string, string | undefined>, runtime);
  return createProfileAdapter(supabaseClient(), config);
}
