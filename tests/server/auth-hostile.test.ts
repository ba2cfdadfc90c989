import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signJwt } from '../../server/jwt.ts';
import { adminDb, backendInfo, signedInClient, uniqueEmail } from '../setup/clients.ts';
import { authFetch, secondGateway } from './auth-helpers.ts';

const huge = 'x'.repeat(10_000);

function expect4xx(status: number) {
  expect(status).toBeGreaterThanOrEqual(400);
  expect(status).toBeLessThan(500);
}

describe('auth: hostile input gets 4xx, never 5xx', () => {
  it('refuses 10 kB strings in every credential field', async () => {
    const cases: [string, unknown, string][] = [
      ['/signup', { email: `${huge}@example.test`, password: 'secret-123' }, 'validation_failed'],
      ['/signup', { email: uniqueEmail('hugepw'), password: huge }, 'validation_failed'],
      ['/token?grant_type=password', { email: `${huge}@example.test`, password: 'secret-123' }, 'invalid_credentials'],
      ['/token?grant_type=password', { email: uniqueEmail('hugepw'), password: huge }, 'invalid_credentials'],
      ['/token?grant_type=refresh_token', { refresh_token: huge }, 'validation_failed'],
    ];
    for (const [path, body, code] of cases) {
      const res = await authFetch(path, { method: 'POST', body });
      expect(res.status, path).toBe(400);
      expect(res.json?.code, path).toBe(code);
    }
    const { session } = await signedInClient('hugeput');
    const put = await authFetch('/user', {
      method: 'PUT',
      token: session.access_token,
      body: { email: `${huge}@x.test` },
    });
    expect(put.status).toBe(400);
    // A big metadata value is just data; it is stored and returned.
    const big = await authFetch('/user', { method: 'PUT', token: session.access_token, body: { data: { bio: huge } } });
    expect(big.status).toBe(200);
  });

  it('answers bad_json for broken JSON on every body-reading route', async () => {
    const { session, user } = await signedInClient('brokenjson');
    const service = backendInfo().serviceRoleKey;
    const routes: [string, string, string | undefined][] = [
      ['POST', '/signup', undefined],
      ['POST', '/token?grant_type=password', undefined],
      ['POST', '/token?grant_type=refresh_token', undefined],
      ['PUT', '/user', session.access_token],
      ['POST', '/admin/users', service],
      ['PUT', `/admin/users/${user.id}`, service],
    ];
    for (const [method, path, token] of routes) {
      for (const rawBody of ['{"email":', 'not json', '"a string"', '', '{"email": "a@b.c"}}']) {
        const res = await authFetch(path, { method, rawBody, token });
        expect(res.status, `${method} ${path} ${rawBody}`).toBe(400);
        expect(res.json?.code, `${method} ${path} ${rawBody}`).toBe('bad_json');
      }
    }
  });

  it('refuses absurdly nested metadata with 400', async () => {
    const depth = 100_000;
    const rawBody = `{"email":"${uniqueEmail('deep')}","password":"secret-123","data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const res = await authFetch('/signup', { method: 'POST', rawBody });
    expect(res.status).toBe(400);
    expect(res.json?.code).toBe('validation_failed');
  });

  it('refuses a body over the gateway limit with 413', async () => {
    const res = await authFetch('/signup', {
      method: 'POST',
      rawBody: JSON.stringify({ email: 'a@b.c', data: { pad: 'y'.repeat(1_100_000) } }),
    });
    expect(res.status).toBe(413);
    expect(res.json?.code).toBe('request_entity_too_large');
  });

  it('refuses forged, expired, malformed and dangling tokens on /user, /logout and /admin', async () => {
    const secret = backendInfo().jwtSecret;
    const { user, session } = await signedInClient('forged');
    const now = Math.floor(Date.now() / 1000);
    const base = {
      sub: user.id,
      role: 'authenticated',
      aud: 'authenticated',
      session_id: (
        JSON.parse(Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString()) as { session_id: string }
      ).session_id,
    };
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...base, exp: now + 60 })).toString('base64url')}.`;
    const tokens: Record<string, [string, number, string]> = {
      otherSecret: [signJwt({ ...base, exp: now + 60 }, 'another-secret-of-at-least-32-characters!!'), 403, 'bad_jwt'],
      expired: [signJwt({ ...base, exp: now - 10 }, secret), 403, 'bad_jwt'],
      algNone: [none, 403, 'bad_jwt'],
      garbage: ['a.b.c', 403, 'bad_jwt'],
      subNotUuid: [signJwt({ ...base, sub: "1' or '1'='1", exp: now + 60 }, secret), 400, 'bad_jwt'],
      sessionNotUuid: [signJwt({ ...base, session_id: 'nope', exp: now + 60 }, secret), 403, 'bad_jwt'],
      unknownUser: [
        signJwt({ ...base, sub: '00000000-0000-4000-8000-00000000dead', exp: now + 60 }, secret),
        403,
        'user_not_found',
      ],
      unknownSession: [
        signJwt({ ...base, session_id: '00000000-0000-4000-8000-00000000beef', exp: now + 60 }, secret),
        403,
        'session_not_found',
      ],
      badRole: [signJwt({ ...base, role: 'postgres', exp: now + 60 }, secret), 403, 'bad_jwt'],
    };
    for (const [name, [token, status, code]] of Object.entries(tokens)) {
      const get = await authFetch('/user', { token });
      expect(get.status, name).toBe(status);
      expect(get.json?.code, name).toBe(code);
      const out = await authFetch('/logout', { method: 'POST', token });
      expect4xx(out.status);
      const admin = await authFetch('/admin/users', { token });
      expect4xx(admin.status);
    }
    // The real session survived all of it.
    expect((await authFetch('/user', { token: session.access_token })).status).toBe(200);
  });

  it('leaves nothing half-written when the database refuses a value', async () => {
    const email = uniqueEmail('nul');
    const res = await authFetch('/signup', {
      method: 'POST',
      body: { email, password: 'secret-123', data: { name: 'a\u0000b' } },
    });
    expect(res.status).toBe(400);
    expect(res.json?.code).toBe('validation_failed');
    const db = await adminDb();
    try {
      expect((await db.query('select 1 from auth.users where email = $1', [email])).rowCount).toBe(0);
      expect(
        (await db.query(`select 1 from auth.identities where identity_data->>'email' = $1`, [email])).rowCount,
      ).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('keeps a "__proto__" metadata key as plain data', async () => {
    const { session } = await signedInClient('proto');
    const res = await authFetch('/user', {
      method: 'PUT',
      token: session.access_token,
      rawBody: '{"data":{"__proto__":{"admin":true},"x":1}}',
    });
    expect(res.status).toBe(200);
    const meta = (res.json?.user_metadata ?? {}) as Record<string, unknown>;
    expect(Object.keys(meta).sort()).toEqual(['__proto__', 'x']);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('treats an unknown API version header as legacy', async () => {
    const res = await fetch(`${backendInfo().url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: {
        apikey: backendInfo().anonKey,
        'content-type': 'application/json',
        'x-supabase-api-version': 'banana',
      },
      body: JSON.stringify({ email: uniqueEmail('v'), password: 'nope-nope' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 400, error_code: 'invalid_credentials' });
  });

  it('never answers 5xx to arbitrary sign-up and sign-in bodies (property)', async () => {
    // Its own gateway with lenient limits: its failed sign-ins must not rate-limit the
    // shared backend's other tests, which all come from 127.0.0.1 too.
    const gateway = await secondGateway({
      auth: { signInLimit: { maxFailuresPerEmail: 10_000, maxFailuresPerIp: 10_000 } },
    });
    const field = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constant(null),
      fc.integer(),
      fc.constant(['x']),
      fc.constant({ a: 1 }),
      fc.emailAddress(),
    );
    await fc
      .assert(
        fc.asyncProperty(
          fc.record(
            {
              email: field,
              password: field,
              data: fc.oneof(field, fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }))),
            },
            { requiredKeys: [] },
          ),
          fc.boolean(),
          async (body, signUp) => {
            const res = await authFetch(signUp ? '/signup' : '/token?grant_type=password', {
              method: 'POST',
              body,
              base: gateway.backend.url,
            });
            expect(res.status).toBeLessThan(500);
          },
        ),
        { numRuns: 40 },
      )
      .finally(() => gateway.backend.stop());
  });
});
