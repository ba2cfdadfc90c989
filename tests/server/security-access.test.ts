import type { RealtimeChannel } from '@supabase/supabase-js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { machineIn, projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { serviceClient, type AnyClient } from '../setup/clients.ts';
import { until } from './realtime-helpers.ts';

/**
 * What an attacker got through, closed: invites that escalated roles, share tokens any
 * member could read, and a removed member who kept the canvas channel until their token
 * expired. Each is checked through supabase-js against the real backend.
 */

let t: Team;
beforeAll(async () => {
  t = await team();
}, 60_000);

const channels: { client: AnyClient; channel: RealtimeChannel }[] = [];
afterEach(async () => {
  for (const { client, channel } of channels.splice(0)) await client.removeChannel(channel);
});

async function invite(project: string, fields: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const { data, error } = await t.owner.client
    .from('project_invites')
    .insert({ project_id: project, ...fields })
    .select('id, token')
    .single();
  if (error) throw new Error(error.message);
  return data;
}

/** The accept-invite function's own call (it runs as the service role after checking the caller). */
function accept(token: string, user: string) {
  return serviceClient().rpc('accept_project_invite', { p_token: token, p_user: user });
}

async function roleOf(project: string, user: string): Promise<string | null> {
  const { data } = await serviceClient()
    .from('project_members')
    .select('role')
    .eq('project_id', project)
    .eq('user_id', user)
    .maybeSingle<{ role: string }>();
  return data?.role ?? null;
}

describe('invites never change an existing member', () => {
  it('a viewer accepting a used-up editor invite stays a viewer and is told it is used up', async () => {
    const project = await projectFor(t);
    const spent = await invite(project, { role: 'editor', max_uses: 1, uses: 0 });
    const newcomer = await accept(spent.token, t.outsider.id);
    expect(newcomer.error).toBeNull();
    const attempt = await accept(spent.token, t.viewer.id);
    expect(attempt.error?.message).toBe('invite_used_up');
    expect(await roleOf(project, t.viewer.id)).toBe('viewer');
  });

  it('a member demoted to viewer cannot re-accept their own spent invite to be an editor again', async () => {
    const project = await projectFor(t);
    const own = await invite(project, { role: 'editor', max_uses: 1 });
    const joined = await accept(own.token, t.outsider.id);
    expect(joined.data).toEqual([{ project_id: project, role: 'editor', already_member: false }]);
    const demoted = await t.owner.client
      .from('project_members')
      .update({ role: 'viewer' })
      .eq('project_id', project)
      .eq('user_id', t.outsider.id);
    expect(demoted.error).toBeNull();
    const again = await accept(own.token, t.outsider.id);
    expect(again.error?.message).toBe('invite_used_up');
    expect(await roleOf(project, t.outsider.id)).toBe('viewer');
  });

  it('a valid invite leaves a member as they are, and revoked or expired ones do nothing', async () => {
    const project = await projectFor(t);
    const open = await invite(project, { role: 'editor' });
    const same = await accept(open.token, t.viewer.id);
    expect(same.data).toEqual([{ project_id: project, role: 'viewer', already_member: true }]);
    expect(await roleOf(project, t.viewer.id)).toBe('viewer');
    const revoked = await invite(project, { role: 'editor', revoked_at: new Date().toISOString() });
    expect((await accept(revoked.token, t.viewer.id)).error?.message).toBe('invite_revoked');
    const expired = await invite(project, { role: 'editor', expires_at: new Date(Date.now() - 60_000).toISOString() });
    expect((await accept(expired.token, t.viewer.id)).error?.message).toBe('invite_expired');
    expect(await roleOf(project, t.viewer.id)).toBe('viewer');
    const uses = await t.owner.client.from('project_invites').select('uses').eq('id', open.id).single();
    expect(uses.data).toEqual({ uses: 0 });
  });
});

describe('share tokens are the owners', () => {
  it('members read the project but not its share token; owners read it through owned_share_tokens', async () => {
    const project = await projectFor(t);
    const asEditor = await t.editor.client.from('projects').select('*').eq('id', project).single();
    expect(asEditor.error).toBeNull();
    expect(asEditor.data).not.toHaveProperty('share_token');
    expect((await t.editor.client.from('projects').select('share_token').eq('id', project)).error).not.toBeNull();
    for (const member of [t.editor, t.viewer]) {
      expect((await member.client.rpc('owned_share_tokens', { p_project: project })).data).toEqual([]);
      expect((await member.client.from('project_share_links').select('*').eq('project_id', project)).data).toEqual([]);
    }
    const owned = await t.owner.client.rpc('owned_share_tokens', { p_project: project });
    expect(owned.data).toEqual([
      { project_id: project, share_token: expect.stringMatching(/^[0-9a-f]{32}$/) as string },
    ]);
    // The link still works for whoever is given it.
    await t.owner.client.from('projects').update({ visibility: 'link' }).eq('id', project);
    const token = (owned.data as { share_token: string }[])[0]!.share_token;
    expect((await t.outsider.client.rpc('join_shared_project', { p_token: token })).data).toBe(project);
  });
});

describe('removing or demoting a member takes effect at once', () => {
  async function joinCanvas(
    client: AnyClient,
    machine: string,
    onClosed: (status: string) => void,
  ): Promise<RealtimeChannel> {
    const { data } = await client.auth.getSession();
    await client.realtime.setAuth(data.session!.access_token);
    const channel = client.channel(`canvas:${machine}`, { config: { private: true } });
    channels.push({ client, channel });
    await new Promise<void>((resolve, reject) => {
      channel.subscribe((status, error) => {
        const text = status as string;
        if (text === 'SUBSCRIBED') resolve();
        else if (text === 'CHANNEL_ERROR' || text === 'CLOSED') {
          onClosed(text);
          reject(error ?? new Error(status));
        }
      });
    }).catch(() => undefined);
    return channel;
  }

  function commit(client: AnyClient, machine: string, version: number) {
    return client.rpc('commit_machine_ops', {
      p_machine: machine,
      p_client_id: 'security-test',
      p_batch_id: crypto.randomUUID(),
      p_ops: [{ type: 'machine.update', changes: { name: `v${version + 1}` } }],
    } as never);
  }

  it('a removed member loses their private channel (event-driven) and every write', async () => {
    const project = await projectFor(t);
    const machine = await machineIn(t, project, 'kicked');
    let ended: string | null = null;
    const channel = await joinCanvas(t.editor.client, machine, (status) => (ended = status));
    expect(channel.state).toBe('joined');
    channel.on('system', {}, (payload: { status?: string }) => {
      if (payload.status === 'error') ended = 'system error';
    });
    expect((await commit(t.editor.client, machine, 0)).error).toBeNull();

    const removed = await t.owner.client
      .from('project_members')
      .delete()
      .eq('project_id', project)
      .eq('user_id', t.editor.id)
      .select('user_id');
    expect(removed.data).toHaveLength(1);
    await until(() => ended, 10_000, 'the removed member’s channel to end');
    const write = await commit(t.editor.client, machine, 1);
    expect(write.error?.code).toBe('P0002');
    // Rejoining is refused too.
    let refused: string | null = null;
    await joinCanvas(t.editor.client, machine, (status) => (refused = status));
    expect(refused).toBe('CHANNEL_ERROR');
  });

  it('a demoted editor cannot write from the moment the demotion commits', async () => {
    const project = await projectFor(t);
    const machine = await machineIn(t, project, 'demoted');
    expect((await commit(t.editor.client, machine, 0)).error).toBeNull();
    await t.owner.client
      .from('project_members')
      .update({ role: 'viewer' })
      .eq('project_id', project)
      .eq('user_id', t.editor.id);
    expect((await commit(t.editor.client, machine, 1)).error?.code).toBe('42501');
    const rename = await t.editor.client.from('machines').update({ name: 'mine now' }).eq('id', machine).select('id');
    expect(rename.data).toEqual([]);
  });
});
