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
