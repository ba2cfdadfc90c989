import { describe, expect, it } from 'vitest';
import { createMembersAdapter } from '../../src/adapters/supabase/members.ts';
import { createProject, person } from './room-fixtures.ts';

/**
 * The members adapter against the embedded backend: invites (create, list, revoke,
 * accept), roles and removal, renaming, and each refusal in words for people.
 */

async function projectWithEditor(tag: string) {
  const [owner, editor] = await Promise.all([person(`${tag}-owner`), person(`${tag}-editor`)]);
  const project = await createProject(owner.client, `Members ${tag}`);
  const ownerPort = createMembersAdapter(owner.client);
  const invite = await ownerPort.createInvite({
    projectId: project.id,
    role: 'editor',
    expiresInDays: 7,
    maxUses: null,
  });
  if (!invite.ok) throw new Error(invite.error.message);
  const accepted = await createMembersAdapter(editor.client).acceptInvite(invite.value.token);
  if (!accepted.ok) throw new Error(accepted.error.message);
  return { owner, editor, project, ownerPort, editorPort: createMembersAdapter(editor.client), invite: invite.value };
}

describe('members adapter', () => {
  it('creates, lists and revokes invites; a revoked link is refused with its reason', async () => {
    const { ownerPort, project, invite } = await projectWithEditor('inv');
    const created = await ownerPort.createInvite({
      projectId: project.id,
      role: 'viewer',
      expiresInDays: 1,
      maxUses: 2,
    });
    if (!created.ok) throw new Error(created.error.message);
    expect(created.value).toMatchObject({ role: 'viewer', maxUses: 2, uses: 0, revoked: false });
    expect(created.value.token).toMatch(/^[0-9a-f]{36}$/);
    expect(Date.parse(created.value.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);

    const listed = await ownerPort.listInvites(project.id);
    expect(listed.ok && listed.value.map((i) => i.id)).toEqual([created.value.id, invite.id]);
    expect(listed.ok && listed.value[1]?.uses).toBe(1);

    expect(await ownerPort.revokeInvite(created.value.id)).toEqual({ ok: true, value: null });
    const after = await ownerPort.listInvites(project.id);
    expect(after.ok && after.value.map((i) => i.id)).toEqual([invite.id]);

    const late = await person('inv-late');
    expect(await createMembersAdapter(late.client).acceptInvite(created.value.token)).toEqual({
      ok: false,
      error: { code: 'invite_revoked', message: 'This invite link was revoked. Ask an owner for a new one.' },
    });
    expect(await createMembersAdapter(late.client).acceptInvite('0'.repeat(36))).toEqual({
      ok: false,
      error: { code: 'invite_not_found', message: 'This invite link is not valid.' },
    });
  });

  it('accepting twice keeps the membership and says so', async () => {
    const { editor, invite } = await projectWithEditor('twice');
    const again = await createMembersAdapter(editor.client).acceptInvite(invite.token);
    expect(again.ok && again.value.alreadyMember).toBe(true);
  });

  it('owners change roles and remove; others are refused in words', async () => {
    const { owner, editor, project, ownerPort, editorPort } = await projectWithEditor('roles');
    expect(await editorPort.changeRole(project.id, owner.id, 'viewer')).toEqual({
      ok: false,
      error: { code: 'forbidden', message: "You don't have permission to change this member's role." },
    });
    expect(await editorPort.listInvites(project.id)).toEqual({ ok: true, value: [] });
    const invite = await editorPort.createInvite({
      projectId: project.id,
      role: 'editor',
      expiresInDays: 1,
      maxUses: null,
    });
    expect(invite.ok ? null : invite.error.code).toBe('forbidden');

    expect(await ownerPort.changeRole(project.id, editor.id, 'viewer')).toEqual({ ok: true, value: null });
    const { data } = await owner.client
      .from('project_members')
      .select('role')
      .eq('project_id', project.id)
      .eq('user_id', editor.id)
      .single();
    expect(data?.role).toBe('viewer');

    // The primary owner stays: the database's rule, in the app's words.
    expect(await ownerPort.removeMember(project.id, owner.id)).toEqual({
      ok: false,
      error: {
        code: 'owner_required',
        message: 'A project must keep its owner. Transfer the project to another owner first.',
      },
    });
    expect(await ownerPort.removeMember(project.id, editor.id)).toEqual({ ok: true, value: null });
    expect(await ownerPort.removeMember(project.id, editor.id)).toEqual({
      ok: false,
      error: { code: 'forbidden', message: "You don't have permission to remove this member." },
    });
  });

  it('renames for editors, refuses viewers and empty names', async () => {
    const { ownerPort, editorPort, editor, project } = await projectWithEditor('rename');
    expect(await editorPort.renameProject(project.id, '  Crossing  ')).toEqual({ ok: true, value: null });
    expect(await ownerPort.renameProject(project.id, '   ')).toEqual({
      ok: false,
      error: { code: 'invalid', message: 'A project name has 1 to 120 characters.' },
    });
    await ownerPort.changeRole(project.id, editor.id, 'viewer');
    expect(await editorPort.renameProject(project.id, 'Nope')).toEqual({
      ok: false,
      error: { code: 'forbidden', message: "You don't have permission to rename this project." },
    });
  });

  it('guests cannot accept invites', async () => {
    const { invite } = await projectWithEditor('guest');
    const { anonClient } = await import('../setup/clients.ts');
    const guest = anonClient();
    await guest.auth.signInAnonymously();
    const result = await createMembersAdapter(guest as never).acceptInvite(invite.token);
    expect(result.ok ? null : result.error.code).toBe('guest_not_allowed');
  });
});
