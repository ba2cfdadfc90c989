import type { SupabaseClient } from '@supabase/supabase-js';
import { EMPTY, concatMap, from, groupBy, mergeMap, of, type Observable } from 'rxjs';
import type { NewProject, ProjectEdit, ProjectsFact, ProjectsPort, ProjectSummary } from '../../lib/ports/projects.ts';
import type { MembersPort, Result, Role, Visibility } from '../../lib/ports/room.ts';
import type { Database, Tables } from './database.types.ts';
import { openChannel, type ChannelFact } from './realtime.ts';
import { supabaseClient, type ChartroomClient } from './client.ts';
import { createMembersAdapter } from './members.ts';
import { changed, describeDataError, guarded } from './room-errors.ts';

/**
 * The signed-in person's projects over Supabase. The list is read through their
 * memberships (one row per project with the project embedded), and kept live by one
 * private channel `projects:<uid>` (only that user may join): every insert and update of
 * `projects` that RLS lets through, the caller's own `project_members` rows, and the
 * database's `membership_removed` broadcast (a DELETE event names nothing). Share tokens
 * are the owners' alone: read through `owned_share_tokens`, never with the row. The member
 * count is a column of the project row, kept by a database trigger, so people joining
 * and leaving arrive as project updates: no one listens to other people's memberships
 * (realtime cannot RLS-check a delete, so that would hear of every membership removed
 * anywhere).
 */

type Client = SupabaseClient<Database>;
type ListTables = 'projects' | 'project_members';
type Removed = { project_id?: unknown };

const asRole = (role: string): Role => (role === 'owner' || role === 'editor' ? role : 'viewer');
const asVisibility = (v: string): Visibility => (v === 'link' || v === 'public' ? v : 'private');

type ProjectRow = Tables<'projects'>;

export function toSummary(project: ProjectRow, role: string, shareToken: string | null = null): ProjectSummary {
  const asOwner = asRole(role) === 'owner';
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    visibility: asVisibility(project.visibility),
    role: asRole(role),
    // A project always has its owner. Its INSERT streams with the count still 0 (the
    // owner's membership, and the trigger counting it, come right after in the same
    // transaction): shown as is, the list would flash "0 members".
    memberCount: Math.max(1, project.member_count),
    shareToken: asOwner ? shareToken : null,
    createdAt: project.created_at,
  };
}

const MEMBERSHIP_SELECT = 'role, project:projects!inner(*)';

const validName = (name: string): Result<string> => {
  const trimmed = name.trim();
  if (trimmed.length === 0) return { ok: false, error: { code: 'invalid', message: 'Give the project a name.' } };
  if (trimmed.length > 120)
    return { ok: false, error: { code: 'invalid', message: 'A project name has at most 120 characters.' } };
  return { ok: true, value: trimmed };
};

export function createProjectsAdapter(client: Client): ProjectsPort {
  /** Known roles, so a project update can be turned into a summary without a round trip. */
  const roles = new Map<string, Role>();
  /** Share tokens of the projects the caller owns (never sent with the row). */
  const tokens = new Map<string, string>();

  /** Reads the caller's owned projects' share tokens (one project, or all). */
  async function loadTokens(projectId: string | null = null): Promise<void> {
    const { data, error } = await (projectId
      ? client.rpc('owned_share_tokens', { p_project: projectId })
      : client.rpc('owned_share_tokens'));
    if (error) return;
    for (const row of data) tokens.set(row.project_id, row.share_token);
  }
  const summary = (project: ProjectRow, role: string): ProjectSummary =>
    toSummary(project, role, tokens.get(project.id) ?? null);

  /** One membership's project as the list shows it, or null when it is gone or hidden. */
  async function summaryOf(projectId: string, userId: string): Promise<ProjectSummary | null> {
    const { data, error } = await client
      .from('project_members')
      .select(MEMBERSHIP_SELECT)
      .eq('project_id', projectId)
      .eq('user_id', userId)
      .maybeSingle();
    if (error || !data) return null;
    if (data.role === 'owner' && !tokens.has(projectId)) await loadTokens(projectId);
    return summary(data.project, data.role);
  }

  /** The project as we now see it (role, member count, settings), read again. */
  const reread = (projectId: string, userId: string): Observable<ProjectsFact> =>
    from(summaryOf(projectId, userId)).pipe(
      mergeMap((project) => (project ? of({ type: 'projects.upserted', project } as const) : EMPTY)),
    );

  /**
   * Facts about one listed project are handled in arrival order (a read started earlier
   * cannot answer after one started later); the rest share one lane, so the lanes are
   * as many as the caller's projects.
   */
  function laneOf(fact: ChannelFact<ListTables, Removed, never>, userId: string): string {
    if (fact.type === 'broadcast') return typeof fact.payload.project_id === 'string' ? fact.payload.project_id : '';
    if (fact.type !== 'change') return '';
    const { change } = fact;
    const row: { id?: string; project_id?: string; user_id?: string } =
      change.kind === 'delete' ? change.old : change.row;
    const projectId = change.table === 'projects' ? row.id : row.project_id;
    return projectId && (roles.has(projectId) || row.user_id === userId) ? projectId : '';
  }

  function toFacts(fact: ChannelFact<ListTables, Removed, never>, userId: string): Observable<ProjectsFact> {
    switch (fact.type) {
      case 'status':
        if (fact.status === 'subscribed') return from([{ type: 'projects.channelJoined' } as const]);
        if (fact.status === 'closed') return EMPTY;
        return from([
          { type: 'projects.channelFailed', message: fact.message ?? 'The live connection failed' } as const,
        ]);
      case 'change': {
        const { change } = fact;
        // DELETE events carry only an opaque replica key: removals come as membership_removed.
        if (change.kind === 'delete') return EMPTY;
        if (change.table === 'projects') {
          const row = change.row as Tables<'projects'>;
          const role = roles.get(row.id);
          // Public projects of others are readable too; only ones we are in belong in the list.
          // The row carries the member count: someone joining or leaving arrives here.
          return role ? of({ type: 'projects.upserted', project: summary(row, role) } as const) : EMPTY;
        }
        // The channel only carries our own memberships (filtered by user_id).
        const member = change.row as Tables<'project_members'>;
        const projectId = member.project_id;
        if (member.user_id !== userId) return EMPTY;
        roles.set(projectId, asRole(member.role ?? 'viewer'));
        // Added to a project, or our role changed: read the project as we now see it.
        return reread(projectId, userId);
      }
      case 'broadcast': {
        // Removed from a project (or it was deleted): only this user's channel hears it.
        const projectId = fact.payload.project_id;
        if (typeof projectId !== 'string') return EMPTY;
        roles.delete(projectId);
        tokens.delete(projectId);
        return of({ type: 'projects.removed', id: projectId } as const);
      }
      default:
        return EMPTY;
    }
  }

  return {
    changes(userId) {
      const channel = openChannel<ListTables, Removed, never>(client, {
        topic: `projects:${userId}`,
        private: true,
        broadcast: ['membership_removed'],
        // Only our own memberships: other people's reach us as member counts on project updates.
        changes: [{ table: 'projects' }, { table: 'project_members', filter: `user_id=eq.${userId}` }],
      });
      // In order within a project's lane; lanes run side by side, so one slow read holds up only its project.
      return channel.facts$.pipe(
        groupBy((fact) => laneOf(fact, userId)),
        mergeMap((lane) => lane.pipe(concatMap((fact) => toFacts(fact, userId)))),
      );
    },

    list: (userId) =>
      guarded('load your projects', async () => {
        const [{ data, error }] = await Promise.all([
          client.from('project_members').select(MEMBERSHIP_SELECT).eq('user_id', userId),
          loadTokens(),
        ]);
        if (error) return { ok: false, error: describeDataError(error, 'load your projects') };
        const projects = data
          .map((m) => summary(m.project, m.role))
          .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
        for (const p of projects) roles.set(p.id, p.role);
        return { ok: true, value: projects };
      }),

    create: ({ name, description, visibility }: NewProject) =>
      guarded('create the project', async () => {
        const checked = validName(name);
        if (!checked.ok) return checked;
        const { data, error } = await client
          .from('projects')
          .insert({ name: checked.value, description: description.trim(), visibility })
          .select('*')
          .single();
        if (error) return { ok: false, error: describeDataError(error, 'create the project') };
        roles.set(data.id, 'owner');
        await loadTokens(data.id);
        // The creator is its one member: the insert's trigger adds them as owner after the
        // row this insert returns was taken, so that row still counts none.
        return { ok: true, value: { ...summary(data, 'owner'), memberCount: 1 } };
      }),

    update: (id, edit: ProjectEdit) =>
      guarded('change the project', async () => {
        const patch: Database['public']['Tables']['projects']['Update'] = {};
        if (edit.name !== undefined) {
          const checked = validName(edit.name);
          if (!checked.ok) return checked;
          patch.name = checked.value;
        }
        if (edit.description !== undefined) patch.description = edit.description.trim();
        if (edit.visibility !== undefined) patch.visibility = edit.visibility;
        const result = await client.from('projects').update(patch).eq('id', id).select('id');
        return changed(
          result,
          'change the project',
          "You don't have permission to change this project, or it no longer exists.",
        );
      }),

    remove: (id) =>
      guarded('delete the project', async () => {
        const result = await client.from('projects').delete().eq('id', id).select('id');
        const answer = changed(
          result,
          'delete the project',
          'Only an owner can delete this project, or it no longer exists.',
        );
        if (answer.ok) {
          roles.delete(id);
          tokens.delete(id);
        }
        return answer;
      }),

    joinShared: (shareToken) =>
      guarded('open the shared project', async () => {
        const { data, error } = await client.rpc('join_shared_project', { p_token: shareToken });
        if (error) {
          if (error.code === 'P0002') {
            return {
              ok: false,
              error: {
                code: 'invalid_link',
                message:
                  'This share link is not valid, or the project is no longer shared. Ask the owner for a new link.',
              },
            };
          }
          if (error.code === '42501')
            return {
              ok: false,
              error: { code: 'not_signed_in', message: 'Sign in, or continue as a guest, to open this project.' },
            };
          return { ok: false, error: describeDataError(error, 'open the shared project') };
        }
        return { ok: true, value: data };
      }),
  };
}

/** The adapter over the app's one browser client (narrowed to the generated schema once, here). */
export function liveProjectsAdapter(client: ChartroomClient = supabaseClient()): ProjectsPort {
  return createProjectsAdapter(client);
}

/** What joining by link needs: the share-link rpc here, the accept-invite call in members.ts. */
export function liveJoinAdapters(client: ChartroomClient = supabaseClient()): {
  projects: ProjectsPort;
  members: MembersPort;
} {
  const typed = client as unknown as Client;
  return { projects: createProjectsAdapter(typed), members: createMembersAdapter(typed) };
}
