import { FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js';
import type { AcceptedInvite, Failure, Invite, InviteRequest, MembersPort, Role } from '../../lib/ports/room.ts';
import type { Database, Tables } from './database.types.ts';
import { changed, describeDataError, guarded } from './room-errors.ts';

/**
 * Requests that change who is in a project: roles, removal, invites, accepting one, and
 * renaming the project. Each answers a Result; the change itself reaches every room
 * (this one included) as a postgres change, so there is one path for data.
 */

type Client = SupabaseClient<Database>;
type AcceptBody = { project_id: string; role: string; already_member: boolean };

const toInvite = (row: Tables<'project_invites'>): Invite => ({
  id: row.id,
  token: row.token,
  role: row.role === 'viewer' ? 'viewer' : 'editor',
  expiresAt: row.expires_at,
  maxUses: row.max_uses,
  uses: row.uses,
  revoked: row.revoked_at !== null,
});

/** The accept-invite function answers `{ code, message }` on failure; keep its words. */
async function functionFailure(error: unknown): Promise<Failure> {
  if (error instanceof FunctionsHttpError) {
    const response = error.context as Response;
    try {
      const body = (await response.json()) as { code?: unknown; message?: unknown };
      if (typeof body.code === 'string' && typeof body.message === 'string')
        return { code: body.code, message: body.message };
    } catch {
      // Not JSON: fall through to the status.
    }
    return {
      code: `http_${response.status}`,
      message: `The invite could not be accepted (${response.status}). Try again.`,
    };
  }
  return describeDataError(error, 'accept the invite');
}

export function createMembersAdapter(client: Client): MembersPort {
  return {
    renameProject: (projectId, name) =>
      guarded('rename the project', async () => {
        const trimmed = name.trim();
        if (trimmed.length === 0 || trimmed.length > 120)
          return { ok: false, error: { code: 'invalid', message: 'A project name has 1 to 120 characters.' } };
        const result = await client.from('projects').update({ name: trimmed }).eq('id', projectId).select('id');
        return changed(result, 'rename the project', "You don't have permission to rename this project.");
      }),

    changeRole: (projectId, userId, role: Role) =>
      guarded('change the role', async () => {
        const result = await client
          .from('project_members')
          .update({ role })
          .eq('project_id', projectId)
          .eq('user_id', userId)
          .select('user_id');
        return changed(result, 'change the role', "You don't have permission to change this member's role.");
      }),

    removeMember: (projectId, userId) =>
      guarded('remove the member', async () => {
        const result = await client
          .from('project_members')
          .delete()
          .eq('project_id', projectId)
          .eq('user_id', userId)
          .select('user_id');
        return changed(result, 'remove the member', "You don't have permission to remove this member.");
      }),

    listInvites: (projectId) =>
      guarded('load the invites', async () => {
        const { data, error } = await client
          .from('project_invites')
          .select('*')
          .eq('project_id', projectId)
          .is('revoked_at', null)
          .gt('expires_at', new Date().toISOString())
          .order('created_at', { ascending: false });
        if (error) return { ok: false, error: describeDataError(error, 'load the invites') };
        return { ok: true, value: data.map(toInvite) };
      }),

    createInvite: ({ projectId, role, expiresInDays, maxUses }: InviteRequest) =>
      guarded('create the invite', async () => {
        const expiresAt = new Date(Date.now() + expiresInDays * 86_400_000).toISOString();
        const { data, error } = await client
          .from('project_invites')
          .insert({ project_id: projectId, role, expires_at: expiresAt, max_uses: maxUses })
          .select('*')
          .single();
        if (error) return { ok: false, error: describeDataError(error, 'create the invite') };
        return { ok: true, value: toInvite(data) };
      }),

    revokeInvite: (inviteId) =>
      guarded('revoke the invite', async () => {
        const result = await client
          .from('project_invites')
          .update({ revoked_at: new Date().toISOString() })
          .eq('id', inviteId)
          .select('id');
        return changed(result, 'revoke the invite', "You don't have permission to revoke this invite.");
      }),

    acceptInvite: (token) =>
      guarded('accept the invite', async () => {
        const response: { data: AcceptBody | null; error: unknown } = await client.functions.invoke<AcceptBody>(
          'accept-invite',
          { body: { token } },
        );
        const { data, error } = response;
        if (error) return { ok: false, error: await functionFailure(error) };
        if (!data)
          return { ok: false, error: { code: 'empty', message: 'The invite could not be accepted. Try again.' } };
        const role: Role = data.role === 'owner' || data.role === 'editor' ? data.role : 'viewer';
        const accepted: AcceptedInvite = { projectId: data.project_id, role, alreadyMember: data.already_member };
        return { ok: true, value: accepted };
      }),
  };
}
