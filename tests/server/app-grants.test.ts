import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminDb, anonClient, serviceClient, signedInClient, type AnyClient } from '../setup/clients.ts';

/**
 * What each API role may do to each of the app's tables, decided by the migrations' own
 * grants and nothing else: hosted Supabase grants nothing by default on new tables in
 * public. The shared test backend is a fresh data dir whose migrations ran as
 * the non-superuser `postgres` (checked first), so a statement the app makes that no
 * migration grants fails here as it would on hosted.
 *
 * A refusal by privilege is `42501 permission denied for table|function ...`, before any
 * row level security: that is what each cell checks. Which rows a permitted statement
 * reaches is row level security's, covered cell by cell in rls-matrix.test.ts.
 */

type Role = 'anon' | 'authenticated' | 'service_role';
type Op = 'select' | 'insert' | 'update' | 'delete';

interface Outcome {
  error: { code?: string; message: string } | null;
}

/** The statements the app makes, per table and role; every other one must be refused. */
const GRANTED: Record<string, Record<Role, Op[]>> = {
  projects: {
    anon: ['select'],
    authenticated: ['select', 'insert', 'update', 'delete'],
    service_role: ['select', 'insert', 'update', 'delete'],
  },
  project_members: {
    anon: ['select'],
    authenticated: ['select', 'insert', 'update', 'delete'],
    service_role: ['select', 'insert', 'update', 'delete'],
  },
  profiles: {
    anon: ['select'],
    authenticated: ['select', 'update'],
    service_role: ['select', 'insert', 'update', 'delete'],
  },
  project_invites: {
    anon: [],
    authenticated: ['select', 'insert', 'update', 'delete'],
    service_role: ['select', 'insert', 'update', 'delete'],
  },
  machines: {
    anon: ['select'],
    authenticated: ['select', 'insert', 'update', 'delete'],
    service_role: ['select', 'insert', 'update', 'delete'],
  },
  machine_ops: { anon: ['select'], authenticated: ['select'], service_role: ['select', 'insert', 'update', 'delete'] },
};

const OPS: Op[] = ['select', 'insert', 'update', 'delete'];
const ROLES: Role[] = ['anon', 'authenticated', 'service_role'];
const clients = {} as Record<Role, AnyClient>;
let userId: string;
let projectId: string;
let machineId: string;

function isPermissionDenied(outcome: Outcome): boolean {
  return outcome.error?.code === '42501' && /^permission denied for (table|function)/.test(outcome.error.message);
}

/** A row for `table` that passes the table's checks (it may still be refused by RLS or a key). */
function rowFor(table: string): Record<string, unknown> {
  switch (table) {
    case 'projects':
      return { name: 'grants' };
    case 'project_members':
      return { project_id: projectId, user_id: userId, role: 'viewer' };
    case 'profiles':
      return { id: userId, display_name: 'x', color: '#000000' };
    case 'project_invites':
      return { project_id: projectId, role: 'viewer', created_by: userId };
    case 'machines':
      // Content goes into the op log; the stored definition and version are the server's (column grants).
      return { project_id: projectId, name: 'grants', definition: {} };
    default:
      // No such machine: a permitted insert fails on the foreign key, never on privileges.
      return {
        machine_id: randomUUID(),
        seq: 1,
        client_id: 'grants',
        batch_id: randomUUID(),
        op: { type: 'noop' },
        author: userId,
      };
  }
}

/** Runs `op` on `table` as `role`; writes match no row (or collide), so only privileges can refuse them. */
async function attempt(role: Role, table: string, op: Op): Promise<Outcome> {
  const from = clients[role].from(table);
  const nothing = table === 'project_members' || table === 'machine_ops' ? 'created_at' : 'id';
  const never = '1999-01-01T00:00:00Z';
  const key = nothing === 'id' ? randomUUID() : never;
  switch (op) {
    case 'select':
      return from.select('*').limit(1);
    case 'insert':
      return from.insert(rowFor(table));
    case 'update':
      return from
        .update(
          table === 'profiles' ? { display_name: 'y' } : table === 'machines' ? { name: 'y' } : { created_at: never },
        )
        .eq(nothing, key);
    case 'delete':
      return from.delete().eq(nothing, key);
  }
}

beforeAll(async () => {
  const user = await signedInClient('grants');
  userId = user.user.id;
  Object.assign(clients, { anon: anonClient(), authenticated: user.client, service_role: serviceClient() });
  const project = await user.client.from('projects').insert({ name: 'grants' }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  projectId = String(project.data.id);
  const machine = await user.client
    .from('machines')
    .insert({ project_id: projectId, name: 'm', definition: {} })
    .select('id')
    .single();
  if (machine.error) throw new Error(machine.error.message);
  machineId = String(machine.data.id);
});

describe('the app’s tables on the hosted-like platform', () => {
  it('were built by every migration, run as postgres without superuser rights, which owns them', async () => {
    const db = await adminDb();
    try {
      const who = await db.query<{ rolsuper: boolean }>(`select rolsuper from pg_roles where rolname = 'postgres'`);
      expect(who.rows[0]?.rolsuper).toBe(false);
      const files = (await fs.readdir('supabase/migrations')).filter((f) => f.endsWith('.sql'));
      const applied = await db.query<{ version: string }>('select version from supabase_migrations.schema_migrations');
      expect(applied.rows.map((r) => r.version)).toEqual(expect.arrayContaining(files.map((f) => f.split('_')[0])));
      const owners = await db.query<{ relname: string; owner: string }>(
        `select c.relname, c.relowner::regrole::text as owner from pg_class c
          where c.relnamespace = 'public'::regnamespace and c.relname = any($1)`,
        [Object.keys(GRANTED)],
      );
      expect(owners.rows).toHaveLength(Object.keys(GRANTED).length);
      expect(new Set(owners.rows.map((r) => r.owner))).toEqual(new Set(['postgres']));
    } finally {
      await db.end();
    }
  });

  for (const table of Object.keys(GRANTED)) {
    for (const role of ROLES) {
      const granted = GRANTED[table]![role];
      it(`${table} as ${role}: ${granted.length ? granted.join(', ') : 'nothing'} granted, the rest refused`, async () => {
        for (const op of OPS) {
          const outcome = await attempt(role, table, op);
          expect({ op, denied: isPermissionDenied(outcome) }).toEqual({ op, denied: !granted.includes(op) });
        }
      });
    }
  }

  it('the reads and writes the app makes work through the real client', async () => {
    const owner = clients.authenticated;
    expect((await owner.from('projects').update({ name: 'renamed' }).eq('id', projectId).select('name')).data).toEqual([
      { name: 'renamed' },
    ]);
    expect(
      (await owner.from('profiles').update({ display_name: 'Granted' }).eq('id', userId).select('display_name')).data,
    ).toEqual([{ display_name: 'Granted' }]);
    const invite = await owner
      .from('project_invites')
      .insert({ project_id: projectId, role: 'viewer' })
      .select('id')
      .single();
    expect(invite.error).toBeNull();
    const inviteId = (invite.data as { id: string }).id;
    expect(
      (
        await owner
          .from('project_invites')
          .update({ revoked_at: new Date().toISOString() })
          .eq('id', inviteId)
          .select('id')
      ).data,
    ).toHaveLength(1);
    expect((await owner.from('project_invites').delete().eq('id', inviteId).select('id')).data).toHaveLength(1);
    const commit = await owner.rpc('commit_machine_ops', {
      p_machine: machineId,
      p_client_id: 'grants',
      p_batch_id: randomUUID(),
      p_ops: [{ type: 'machine.update', changes: { name: 'committed' } }],
    } as never);
    expect(commit.error).toBeNull();
    const logged = (await owner.from('machine_ops').select('seq').eq('machine_id', machineId)).data ?? [];
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect((await owner.from('machines').update({ name: 'renamed' }).eq('id', machineId).select('name')).data).toEqual([
      { name: 'renamed' },
    ]);
    const publicRead = await clients.anon.from('projects').select('id').limit(1);
    expect(publicRead.error).toBeNull();
    expect(
      (await clients.service_role.from('machine_ops').delete().eq('machine_id', machineId).select('seq')).data,
    ).toHaveLength(logged.length);
    expect((await owner.from('machines').delete().eq('id', machineId).select('id')).data).toHaveLength(1);
    expect((await owner.from('projects').delete().eq('id', projectId).select('id')).data).toHaveLength(1);
  });

  it('functions run only for the roles their migration grants', async () => {
    const token = { p_token: 'no-such-token' };
    expect(isPermissionDenied(await clients.anon.rpc('join_shared_project', token))).toBe(true);
    expect(isPermissionDenied(await clients.authenticated.rpc('join_shared_project', token))).toBe(false);
    const accept = { p_token: 'no-such-token', p_user: userId };
    expect(isPermissionDenied(await clients.authenticated.rpc('accept_project_invite', accept))).toBe(true);
    expect(isPermissionDenied(await clients.service_role.rpc('accept_project_invite', accept))).toBe(false);
    const commit = {
      p_machine: randomUUID(),
      p_client_id: 'x',
      p_batch_id: randomUUID(),
      p_ops: [{ type: 'machine.update', changes: { name: 'x' } }],
    };
    expect(isPermissionDenied(await clients.anon.rpc('commit_machine_ops', commit))).toBe(true);
    // Helpers only the migrations' own functions call are nobody's to call.
    for (const role of ROLES)
      expect(isPermissionDenied(await clients[role].rpc('palette_color', { p_id: userId }))).toBe(true);
  });
});
