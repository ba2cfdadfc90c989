import type { SupabaseClient } from '@supabase/supabase-js';
import { concat, defer, EMPTY, filter, from, mergeMap, of, type Observable } from 'rxjs';
import type {
  Member,
  PresenceMeta,
  Profile,
  Project,
  Result,
  RoomChange,
  RoomChannel,
  RoomData,
  RoomFact,
  RoomPort,
  Role,
  Visibility,
} from '../../lib/ports/room.ts';
import type { Database, Tables } from './database.types.ts';
import { openChannel, type ChannelFact, type TableChange } from './realtime.ts';
import { describeDataError } from './room-errors.ts';

/**
 * One project's room over Supabase: a private channel `room:<id>` (readers of the project
 * join; members track presence) carrying the project row, its members and (RLS-limited)
 * profiles as postgres changes, removals as broadcasts from the database
 * (`member_removed`, `project_deleted`: a DELETE event names nothing), plus presence keyed
 * by user id. Rows become the port's plain records here; Supabase's shapes stop at this file.
 */

type Client = SupabaseClient<Database>;
type RoomTables = 'projects' | 'project_members' | 'profiles';
type Removal = { project_id?: unknown; user_id?: unknown; id?: unknown; committed_at?: unknown };
const REMOVALS = ['member_removed', 'project_deleted'];

const ROLES: readonly Role[] = ['owner', 'editor', 'viewer'];
const asRole = (role: string): Role => (ROLES.includes(role as Role) ? (role as Role) : 'viewer');
const asVisibility = (v: string): Visibility => (v === 'link' || v === 'public' ? v : 'private');

export const toProject = (row: Tables<'projects'>): Project => ({
  id: row.id,
  name: row.name,
  description: row.description,
  visibility: asVisibility(row.visibility),
  ownerId: row.owner_id,
  updatedAt: row.updated_at,
});

export const toMember = (row: Tables<'project_members'>): Member => ({
  projectId: row.project_id,
  userId: row.user_id,
  role: asRole(row.role),
  updatedAt: row.updated_at,
  joinedAt: row.created_at,
});

export function profileMapper(client: Client) {
  return (row: Tables<'profiles'>): Profile => ({
    id: row.id,
    displayName: row.display_name,
    color: row.color,
    avatarUrl: row.avatar_path ? client.storage.from('avatars').getPublicUrl(row.avatar_path).data.publicUrl : null,
    updatedAt: row.updated_at,
  });
}

function toRoomChange(
  change: TableChange<RoomTables>,
  toProfile: (row: Tables<'profiles'>) => Profile,
): RoomChange | null {
  // DELETE events carry only an opaque replica key; removals arrive as broadcasts.
  if (change.kind === 'delete') return null;
  switch (change.table) {
    case 'projects':
      return { table: 'projects', type: 'upsert', row: toProject(change.row as Tables<'projects'>) };
    case 'project_members':
      return { table: 'project_members', type: 'upsert', row: toMember(change.row as Tables<'project_members'>) };
    case 'profiles':
      return { table: 'profiles', type: 'upsert', row: toProfile(change.row as Tables<'profiles'>) };
  }
}

/** A removal broadcast from the database as a room change. */
function toRemoval(event: string, payload: Removal): RoomChange | null {
  if (typeof payload.committed_at !== 'string') return null;
  const committedAt = payload.committed_at;
  if (event === 'member_removed' && typeof payload.user_id === 'string')
    return { table: 'project_members', type: 'delete', userId: payload.user_id, committedAt };
  if (event === 'project_deleted' && typeof payload.id === 'string')
    return { table: 'projects', type: 'delete', id: payload.id, committedAt };
  return null;
}

function toRoomFact(
  fact: ChannelFact<RoomTables, Removal, PresenceMeta>,
  toProfile: (row: Tables<'profiles'>) => Profile,
): RoomFact | null {
  switch (fact.type) {
    case 'status':
      if (fact.status === 'subscribed') return { type: 'channel.subscribed' };
      if (fact.status === 'closed') return { type: 'channel.closed' };
      return { type: 'channel.errored', message: fact.message ?? 'The live connection to this room failed' };
    case 'change': {
      const change = toRoomChange(fact.change, toProfile);
      return change ? { type: 'change.received', change } : null;
    }
    case 'presence':
      return {
        type: 'presence.synced',
        peers: fact.peers.map((peer) => ({
          userId: peer.meta.userId ?? peer.key,
          looking: peer.meta.looking ?? null,
          connections: peer.connections,
        })),
      };
    case 'broadcast': {
      const change = toRemoval(fact.event, fact.payload);
      return change ? { type: 'change.received', change } : null;
    }
  }
}

export function createRoomAdapter(client: Client): RoomPort {
  const toProfile = profileMapper(client);
  return {
    open(projectId: string, userId: string): RoomChannel {
      const channel = openChannel<RoomTables, Removal, PresenceMeta>(client, {
        topic: `room:${projectId}`,
        private: true,
        broadcast: REMOVALS,
        changes: [
          { table: 'projects', filter: `id=eq.${projectId}` },
          { table: 'project_members', filter: `project_id=eq.${projectId}` },
          // RLS limits these to people this user shares a project with.
          { table: 'profiles' },
        ],
        presenceKey: userId,
      });
      // A member who joins while the room is open brings a profile the room has not
      // loaded: fetch it right after the membership, as a profile change of its own.
      const profileOf = (userId: string): Observable<RoomFact> =>
        defer(() => from(client.from('profiles').select('*').eq('id', userId).maybeSingle())).pipe(
          mergeMap(({ data }) =>
            data
              ? of<RoomFact>({
                  type: 'change.received',
                  change: { table: 'profiles', type: 'upsert', row: toProfile(data) },
                })
              : EMPTY,
          ),
        );
      const facts$: Observable<RoomFact> = channel.facts$.pipe(
        mergeMap((fact) => {
          const mapped = toRoomFact(fact, toProfile);
          if (!mapped) return EMPTY;
          if (fact.type === 'change' && fact.change.table === 'project_members' && fact.change.kind === 'insert') {
            return concat(of(mapped), profileOf((fact.change.row as Tables<'project_members'>).user_id));
          }
          return of(mapped);
        }),
        filter((fact): fact is RoomFact => fact !== null),
      );
      return {
        facts$,
        track: (looking) => channel.track({ userId, looking, onlineAt: new Date().toISOString() }),
        close: () => undefined,
      };
    },

    async loadSnapshot(projectId: string): Promise<Result<RoomData>> {
      try {
        const [project, members] = await Promise.all([
          client.from('projects').select('*').eq('id', projectId).maybeSingle(),
          client.from('project_members').select('*').eq('project_id', projectId),
        ]);
        if (project.error) return { ok: false, error: describeDataError(project.error, 'load this project') };
        if (members.error) return { ok: false, error: describeDataError(members.error, 'load the members') };
        if (!project.data) {
          return {
            ok: false,
            error: { code: 'not_found', message: "This project doesn't exist, or you don't have access to it." },
          };
        }
        const ids = members.data.map((m) => m.user_id);
        const profiles =
          ids.length > 0 ? await client.from('profiles').select('*').in('id', ids) : { data: [], error: null };
        if (profiles.error)
          return { ok: false, error: describeDataError(profiles.error, "load the members' profiles") };
        return {
          ok: true,
          value: {
            project: toProject(project.data),
            members: Object.fromEntries(members.data.map((m) => [m.user_id, toMember(m)])),
            profiles: Object.fromEntries(profiles.data.map((p) => [p.id, toProfile(p)])),
          },
        };
      } catch (error) {
        return { ok: false, error: describeDataError(error, 'load this project') };
      }
    },
  };
}
