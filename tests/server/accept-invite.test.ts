import { FunctionsHttpError } from '@supabase/supabase-js';
import { describe, expect, it, vi } from 'vitest';
import { adminDb, anonClient, signedInClient, type AnyClient } from '../setup/clients.ts';

/** The accept-invite edge function (supabase/functions/accept-invite) through supabase-js. */

// The first call cold-starts the function's worker (tsx and supabase-js on a new thread):
// on a busy two-core machine that alone can take most of the default 30 s.
vi.setConfig({ testTimeout: 90_000 });

async function accept(client: AnyClient, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const result = await client.functions.invoke<Record<string, unknown>>('accept-invite', {
    body: body as Record<string, unknown>,
  });
  const data = result.data;
  const error = result.error as unknown;
  if (error) {
    if (!(error instanceof FunctionsHttpError)) throw error as Error;
    const res = error.context as Response;
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  return { status: 200, body: data ?? {} };
}

async function projectWithInvite(invite: { role?: string; max_uses?: number | null; expires_at?: string } = {}) {
  const owner = await signedInClient('owner');
  const created = await owner.client.from('projects').insert({ name: 'Invites' }).select('id').single();
  if (created.error) throw created.error;
  const project = created.data as unknown;
  const inserted = await owner.client
    .from('project_invites')
    .insert({ project_id: (project as { id: string }).id, role: 'editor', ...invite })
    .select()
    .single();
  if (inserted.error) throw inserted.error;
  return { owner, projectId: (project as { id: string }).id, invite: inserted.data as { id: string; token: string } };
}

describe('accept-invite', () => {
  it('adds the caller with the invite role, counts the use, and is idempotent for a member', async () => {
    const { owner, projectId, invite } = await projectWithInvite({ role: 'viewer', max_uses: 2 });
    const b = await signedInClient('invitee');
    const first = await accept(b.client, { token: invite.token });
    expect(first).toEqual({ status: 200, body: { project_id: projectId, role: 'viewer', already_member: false } });
    const again = await accept(b.client, { token: invite.token });
    expect(again.body).toMatchObject({ already_member: true, role: 'viewer' });

    const { data: members } = await owner.client
      .from('project_members')
      .select('user_id, role, joined_via')
      .eq('project_id', projectId);
    expect(members).toContainEqual({ user_id: b.user.id, role: 'viewer', joined_via: 'invite' });
    const { data: used } = await owner.client.from('project_invites').select('uses').eq('id', invite.id).single();
    expect(used).toEqual({ uses: 1 });
    // B can now read the project it could not see before.
    const { data: seen } = await b.client.from('projects').select('id').eq('id', projectId);
    expect(seen).toEqual([{ id: projectId }]);
  });

  it('refuses an unknown, expired, revoked or used-up token with a specific code, adding no member', async () => {
    const b = await signedInClient('invitee');
    expect(await accept(b.client, { token: 'ab'.repeat(18) })).toMatchObject({
      status: 404,
      body: { code: 'invite_not_found' },
    });

    const expired = await projectWithInvite({ expires_at: new Date(Date.now() - 60_000).toISOString() });
    expect(await accept(b.client, { token: expired.invite.token })).toMatchObject({
      status: 410,
      body: { code: 'invite_expired' },
    });

    const revoked = await projectWithInvite();
    await revoked.owner.client
      .from('project_invites')
      .update({ revoked_at: new Date().toISOString() })
      .eq('id', revoked.invite.id);
    expect(await accept(b.client, { token: revoked.invite.token })).toMatchObject({
      status: 410,
      body: { code: 'invite_revoked' },
    });

    const single = await projectWithInvite({ max_uses: 1 });
    const c = await signedInClient('first');
    expect((await accept(c.client, { token: single.invite.token })).status).toBe(200);
    expect(await accept(b.client, { token: single.invite.token })).toMatchObject({
      status: 409,
      body: { code: 'invite_used_up' },
    });

    const db = await adminDb();
    try {
      const rows = await db.query('select 1 from public.project_members where user_id = $1', [b.user.id]);
      expect(rows.rowCount).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('refuses malformed bodies, guests and callers without a session', async () => {
    const { invite } = await projectWithInvite();
    const b = await signedInClient('invitee');
    expect(await accept(b.client, { token: "x' or 1=1 --" })).toMatchObject({
      status: 400,
      body: { code: 'invalid_request' },
    });
    expect(await accept(b.client, { nope: true })).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect(await accept(b.client, 'not json')).toMatchObject({ status: 400 });

    const guest = anonClient();
    const { error } = await guest.auth.signInAnonymously();
    expect(error).toBeNull();
    expect(await accept(guest, { token: invite.token })).toMatchObject({
      status: 403,
      body: { code: 'guest_not_allowed' },
    });

    // The anon key alone is a valid JWT for the relay, but there is no user behind it.
    expect(await accept(anonClient(), { token: invite.token })).toMatchObject({
      status: 401,
      body: { code: 'not_signed_in' },
    });
  });
});
