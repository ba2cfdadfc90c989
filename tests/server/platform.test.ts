import { describe, expect, it } from 'vitest';
import { demoKeys, signJwt, verifyJwt, JwtError } from '../../server/jwt.ts';
import { adminDb, backendInfo } from '../setup/clients.ts';

describe('platform bootstrap', () => {
  it('signs the Supabase CLI demo keys with the configured secret', () => {
    const { anonKey } = demoKeys(backendInfo().jwtSecret);
    // The Supabase CLI's published local anon key.
    expect(anonKey).toBe(
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0',
    );
  });

  it('refuses a forged, an expired and a malformed JWT with distinct reasons', () => {
    const secret = backendInfo().jwtSecret;
    const forged = signJwt({ role: 'service_role' }, 'another-secret-of-at-least-32-characters!!');
    const expired = signJwt({ role: 'authenticated', exp: Math.floor(Date.now() / 1000) - 5 }, secret);
    const reason = (token: string) => {
      try {
        verifyJwt(token, secret);
        return 'valid';
      } catch (error) {
        return (error as JwtError).reason;
      }
    };
    expect(reason(forged)).toBe('bad_signature');
    expect(reason(expired)).toBe('expired');
    expect(reason('not-a-jwt')).toBe('malformed');
    expect(reason(signJwt({ role: 'anon' }, secret))).toBe('valid');
  });

  it('has the roles, schemas, functions and publication hosted Supabase has', async () => {
    const db = await adminDb();
    try {
      const roles = await db.query<{ rolname: string; rolbypassrls: boolean }>(
        `select rolname, rolbypassrls from pg_roles where rolname in ('anon','authenticated','service_role','authenticator') order by rolname`,
      );
      expect(roles.rows).toEqual([
        { rolname: 'anon', rolbypassrls: false },
        { rolname: 'authenticated', rolbypassrls: false },
        { rolname: 'authenticator', rolbypassrls: false },
        { rolname: 'service_role', rolbypassrls: true },
      ]);
      const rls = await db.query<{ relname: string; relrowsecurity: boolean }>(
        `select c.relname, c.relrowsecurity from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where (n.nspname, c.relname) in (('storage','objects'),('storage','buckets'),('realtime','messages')) order by 1`,
      );
      expect(rls.rows.every((r) => r.relrowsecurity)).toBe(true);
      expect(rls.rows).toHaveLength(3);
      const pub = await db.query(`select 1 from pg_publication where pubname = 'supabase_realtime'`);
      expect(pub.rowCount).toBe(1);
      const wal = await db.query<{ wal_level: string }>('show wal_level');
      expect(wal.rows[0]?.wal_level).toBe('logical');
      const storageFns = await db.query<{ f: string[]; n: string; e: string }>(
        `select storage.foldername('a/b/c.png') as f, storage.filename('a/b/c.png') as n, storage.extension('a/b/c.png') as e`,
      );
      expect(storageFns.rows[0]).toEqual({ f: ['a', 'b'], n: 'c.png', e: 'png' });
    } finally {
      await db.end();
    }
  });

  it('gives roles hosted Supabase’s attributes: postgres is not a superuser, the API roles inherit', async () => {
    const db = await adminDb();
    try {
      const roles = await db.query<Record<string, unknown>>(
        `select rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls
           from pg_roles where rolname in ('postgres', 'supabase_admin', 'anon', 'authenticated', 'service_role', 'authenticator')
          order by rolname`,
      );
      const row = (name: string) => roles.rows.find((r) => r.rolname === name);
      expect(row('postgres')).toMatchObject({
        rolsuper: false,
        rolinherit: true,
        rolcreaterole: true,
        rolcreatedb: true,
        rolcanlogin: true,
        rolreplication: true,
        rolbypassrls: true,
      });
      expect(row('supabase_admin')).toMatchObject({ rolsuper: true });
      for (const api of ['anon', 'authenticated', 'service_role'])
        expect(row(api)).toMatchObject({ rolinherit: true, rolcanlogin: false });
      expect(row('authenticator')).toMatchObject({ rolinherit: false, rolcanlogin: true });
      // The search path is set per role, none for the database.
      const paths = await db.query<{ role: string | null; config: string[] }>(
        `select r.rolname as role, s.setconfig as config from pg_db_role_setting s left join pg_roles r on r.oid = s.setrole
          where s.setdatabase in (0, (select oid from pg_database where datname = current_database()))`,
      );
      const searchPath = (role: string | null) =>
        paths.rows
          .filter((p) => p.role === role)
          .flatMap((p) => p.config)
          .find((c) => c.startsWith('search_path='));
      expect(searchPath('postgres')).toBe('search_path="$user", public, extensions');
      expect(searchPath('supabase_admin')).toBe('search_path="$user", public, auth, extensions');
      expect(searchPath(null)).toBeUndefined();
      const graphql = await db.query(`select has_schema_privilege('anon', 'graphql_public', 'usage') as ok`);
      expect(graphql.rows).toEqual([{ ok: true }]);
    } finally {
      await db.end();
    }
  });

  it('shapes auth.users, realtime.messages and storage as hosted does', async () => {
    const db = await adminDb();
    try {
      const rls = await db.query(`select relrowsecurity from pg_class where oid = 'auth.users'::regclass`);
      expect(rls.rows).toEqual([{ relrowsecurity: true }]);
      const messages = await db.query<{ kind: string; key: string }>(
        `select c.relkind as kind, pg_get_partkeydef(c.oid) as key from pg_class c where c.oid = 'realtime.messages'::regclass`,
      );
      expect(messages.rows).toEqual([{ kind: 'p', key: 'RANGE (inserted_at)' }]);
      const binary = await db.query(
        `select format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = 'realtime.messages'::regclass and attname = 'binary_payload'`,
      );
      expect(binary.rows).toEqual([{ type: 'bytea' }]);
      await expect(
        db.query(
          `insert into realtime.messages (topic, extension, payload, binary_payload) values ('t', 'broadcast', '{}', '\\x00')`,
        ),
      ).rejects.toThrow(/messages_payload_exclusive/);
      const grants = await db.query<{ grantee: string; privileges: string[] }>(
        `select grantee, array_agg(privilege_type::text order by privilege_type) as privileges from information_schema.role_table_grants
          where table_schema = 'realtime' and table_name = 'messages' and grantee in ('anon', 'authenticated', 'service_role', 'postgres')
          group by grantee order by grantee`,
      );
      expect(grants.rows).toEqual(
        ['anon', 'authenticated', 'postgres', 'service_role'].map((grantee) => ({
          grantee,
          privileges: ['INSERT', 'SELECT', 'UPDATE'],
        })),
      );
      const type = await db.query(
        `select format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = 'storage.buckets'::regclass and attname = 'type'`,
      );
      expect(type.rows).toEqual([{ type: 'storage.buckettype' }]);
      const triggers = await db.query<{ tgname: string }>(
        `select tgname from pg_trigger where tgname in ('protect_buckets_delete', 'protect_objects_delete') order by 1`,
      );
      expect(triggers.rows.map((t) => t.tgname)).toEqual(['protect_buckets_delete', 'protect_objects_delete']);
      // Deleting around the storage API would orphan files: refused, even for postgres.
      await expect(db.query(`delete from storage.objects where false`)).rejects.toMatchObject({ code: '42501' });
    } finally {
      await db.end();
    }
  });

  it('exposes the claims to auth.uid(), auth.role(), auth.email() and auth.jwt() inside a request role', async () => {
    const db = await adminDb();
    try {
      await db.query('begin');
      const sub = '00000000-0000-4000-8000-000000000001';
      await db.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [
        JSON.stringify({ sub, role: 'authenticated', email: 'a@example.test' }),
      ]);
      const r = await db.query<{ uid: string; role: string; email: string; jwt: { sub: string } }>(
        'select auth.uid() as uid, auth.role() as role, auth.email() as email, auth.jwt() as jwt',
      );
      expect(r.rows[0]).toMatchObject({ uid: sub, role: 'authenticated', email: 'a@example.test', jwt: { sub } });
      await expect(db.query('select count(*) from auth.users')).rejects.toThrow(/permission denied/);
      await db.query('rollback');
    } finally {
      await db.end();
    }
  });
});
