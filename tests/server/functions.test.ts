import http from 'node:http';
import { FunctionsHttpError } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { signJwt } from '../../server/jwt.ts';
import { anonClient, backendInfo } from '../setup/clients.ts';
import { expectPreflightAllows } from './cors-helpers.ts';
import { invoke, useFixtureGateway } from './functions-helpers.ts';

/**
 * The edge functions relay: routing, verify_jwt, the request and response bridge, and
 * errors. A second gateway on the test database serves the fixture project in
 * tests/fixtures/functions/supabase (its own config.toml, functions and .env).
 */

const gateway = useFixtureGateway({ dirPrefix: 'functions-', maxBodyBytes: 64 * 1024 });
const { logs, client } = gateway;

function fn(name: string): string {
  return `${gateway.url}/functions/v1/${name}`;
}

describe('functions: verify_jwt', () => {
  it('refuses a request without any token as the hosted relay does', async () => {
    const res = await fetch(fn('echo'), { method: 'POST' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 401, message: 'Missing authorization header' });
  });

  it('refuses a forged, an expired and a malformed token with Invalid JWT', async () => {
    const { jwtSecret } = backendInfo();
    const forged = signJwt({ role: 'service_role' }, 'a-different-secret-of-at-least-32-characters');
    const expired = signJwt(
      { role: 'authenticated', sub: crypto.randomUUID(), exp: Math.floor(Date.now() / 1000) - 10 },
      jwtSecret,
    );
    for (const token of [forged, expired, 'not-a-jwt']) {
      const res = await fetch(fn('echo'), { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ code: 401, message: 'Invalid JWT' });
    }
    // Through the client: the relay's 401 is a FunctionsHttpError carrying the response.
    const { data, error } = await invoke(client(forged), 'echo', { body: {} });
    expect(data).toBeNull();
    expect(error).toBeInstanceOf(FunctionsHttpError);
    expect(((error as FunctionsHttpError).context as Response).status).toBe(401);
  });

  it('runs with the anon key, with a user token, and with the apikey header alone', async () => {
    const anon = await invoke(client(), 'echo', { body: { hello: 'anon' } });
    expect(anon.error).toBeNull();
    expect((anon.data as { body: unknown }).body).toEqual({ hello: 'anon' });

    const sub = crypto.randomUUID();
    const userToken = signJwt(
      { role: 'authenticated', sub, aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 600 },
      backendInfo().jwtSecret,
    );
    const user = client();
    user.functions.setAuth(userToken);
    const asUser = await invoke(user, 'echo', { body: { hello: 'user' } });
    expect(asUser.error).toBeNull();
    expect((asUser.data as { headers: Record<string, string> }).headers.authorization).toBe(`Bearer ${userToken}`);

    const apikeyOnly = await fetch(fn('echo'), { headers: { apikey: gateway.anonKey } });
    expect(apikeyOnly.status).toBe(200);
  });

  it('lets a verify_jwt = false function run without a token and with a bad one', async () => {
    const none = await fetch(fn('open'));
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual({ open: true, authorization: null });
    const bad = await fetch(fn('open'), { headers: { authorization: 'Bearer forged.token.here' } });
    expect(bad.status).toBe(200);
    expect(await bad.json()).toEqual({ open: true, authorization: 'Bearer forged.token.here' });
  });

  it('reads verify_jwt from the real project config: health is public and answers {ok, time}', async () => {
    const { url } = backendInfo();
    const res = await fetch(`${url}/functions/v1/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; time: string };
    expect(body.ok).toBe(true);
    expect(Number.isNaN(Date.parse(body.time))).toBe(false);
    const { data, error } = await invoke(anonClient(), 'health', { method: 'GET' });
    expect(error).toBeNull();
    expect((data as { ok: boolean }).ok).toBe(true);
  });
});

describe('functions: the request reaches the handler', () => {
  it('carries method, sub-path, query, custom headers and a JSON body (functions.invoke)', async () => {
    const { data, error } = await invoke(client(), 'echo/sub/path?x=1&y=two', {
      method: 'PUT',
      headers: { 'x-custom': 'custom-value' },
      body: { nested: { a: [1, 2, 3] }, text: 'héllo' },
    });
    expect(error).toBeNull();
    const echo = data as {
      method: string;
      path: string;
      query: Record<string, string>;
      headers: Record<string, string>;
      body: unknown;
      contentType: string;
    };
    expect(echo.method).toBe('PUT');
    // Hosted functions see /<name>/..., not the relay's /functions/v1 prefix.
    expect(echo.path).toBe('/echo/sub/path');
    expect(echo.query).toEqual({ x: '1', y: 'two' });
    expect(echo.headers['x-custom']).toBe('custom-value');
    expect(echo.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(echo.body))));
    expect(echo.headers.connection).toBeUndefined();
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(echo.headers.apikey).toBe(gateway.anonKey);
    expect(echo.headers.authorization).toBe(`Bearer ${gateway.anonKey}`);
    expect(echo.contentType).toBe('application/json');
    expect(echo.body).toEqual({ nested: { a: [1, 2, 3] }, text: 'héllo' });
  });

  it('carries a text body and a GET without body', async () => {
    const text = await invoke(client(), 'echo', { body: 'plain words\nsecond line' });
    expect(text.error).toBeNull();
    expect(text.data).toMatchObject({ method: 'POST', contentType: 'text/plain', body: 'plain words\nsecond line' });
    const get = await invoke(client(), 'echo?only=query', { method: 'GET' });
    expect(get.data).toMatchObject({ method: 'GET', query: { only: 'query' }, body: '' });
  });

  it('gives the handler a valid URL even when the Host header is not one', async () => {
    const { port } = new URL(gateway.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/functions/v1/open?q=1', headers: { host: 'bad host^' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('refuses a body over the gateway limit with 413 before the function runs', async () => {
    const res = await fetch(fn('echo'), {
      method: 'POST',
      headers: { apikey: gateway.anonKey, 'content-type': 'text/plain' },
      body: 'x'.repeat(65 * 1024),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('functions: the response comes back', () => {
  it('returns status, headers and a binary body byte for byte', async () => {
    const { data, error, response } = await invoke(client(), 'binary');
    expect(error).toBeNull();
    expect(response?.headers.get('content-type')).toBe('application/octet-stream');
    // A body complete at once goes out with its length, as Deno's server sends it.
    expect(response?.headers.get('content-length')).toBe('256');
    const bytes = new Uint8Array(await (data as Blob).arrayBuffer());
    expect(bytes.length).toBe(256);
    expect(bytes.every((b, i) => b === i)).toBe(true);
  });

  it('delivers large bodies whole, in order, through the chunked path', async () => {
    for (const size of [0, 1, 256 * 1024, 3 * 1024 * 1024 + 7]) {
      const res = await fetch(fn(`large?size=${size}`), { headers: { apikey: gateway.anonKey } });
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.length).toBe(size);
      expect(bytes.every((b, i) => b === i % 251)).toBe(true);
    }
  });

  it('streams a body chunk by chunk and keeps repeated headers', async () => {
    const res = await fetch(fn('stream?n=5'));
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBe('a=1');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const reader = res.body!.getReader();
    const seen: string[] = [];
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.push(decoder.decode(value));
    }
    expect(seen.join('')).toBe('chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n');
  });

  it('keeps the gateway CORS headers, and lets a function replace them without duplicates', async () => {
    const origin = 'http://localhost:5173';
    const echo = await fetch(fn('echo'), { headers: { origin, apikey: gateway.anonKey } });
    // The echo fixture sets its own Access-Control-Allow-Origin: * (Supabase convention).
    expect(echo.headers.get('access-control-allow-origin')).toBe('*');
    const open = await fetch(fn('open'), { headers: { origin } });
    expect(open.headers.get('access-control-allow-origin')).toBe(origin);
    expect(open.headers.get('access-control-expose-headers')).toContain('Content-Range');
    const own = await fetch(fn('own-cors'), { headers: { origin, apikey: gateway.anonKey } });
    expect(own.headers.get('access-control-allow-origin')).toBe('https://own.example');
    expect(await own.text()).toBe('own');
  });

  it('answers a CORS preflight on a function URL without a token', async () => {
    await expectPreflightAllows(
      fn('echo'),
      'http://localhost:5173',
      'apikey,authorization,content-type,x-client-info',
      'POST',
    );
  });
});

describe('functions: errors', () => {
  const failures: [string, number, string][] = [
    ['throw-sync', 500, 'WORKER_ERROR'],
    ['throw-async', 500, 'WORKER_ERROR'],
    ['throw-import', 503, 'BOOT_ERROR'],
    ['no-serve', 503, 'BOOT_ERROR'],
    ['bad-header', 500, 'WORKER_ERROR'],
  ];

  it.each(failures)('%s answers %i %s, logs why, and the backend keeps serving', async (name, status, code) => {
    const before = logs.length;
    const res = await fetch(fn(name), { headers: { apikey: gateway.anonKey } });
    expect(res.status).toBe(status);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe(code);
    expect(body.message).toMatch(/please check logs/);
    expect(logs.slice(before).some((line) => line.startsWith(`[functions:${name}]`))).toBe(true);
    // The same failure again (a failed boot is retried), and another function is unaffected.
    expect((await fetch(fn(name), { headers: { apikey: gateway.anonKey } })).status).toBe(status);
    const ok = await invoke(client(), 'echo', { body: { still: 'serving' } });
    expect((ok.data as { body: unknown }).body).toEqual({ still: 'serving' });
  });

  it('says why in the log: the thrown message reaches the log line', async () => {
    await fetch(fn('throw-import'), { headers: { apikey: gateway.anonKey } });
    await fetch(fn('throw-async'), { headers: { apikey: gateway.anonKey } });
    expect(logs.some((line) => line.includes('import boom'))).toBe(true);
    expect(logs.some((line) => line.includes('async boom'))).toBe(true);
  });

  it('answers 404 NOT_FOUND for unknown, disabled, shared and malformed names', async () => {
    // (`%2e%2e` is not here: URL parsing turns it into `..` before the request leaves.)
    const paths = [
      'nope',
      'disabled-fn',
      '_shared',
      '_shared/cors.ts',
      '',
      '..%2F..%2Fpackage.json',
      'echo%2F..',
      'echo.ts',
      'a%20b',
      '.env',
    ];
    for (const p of paths) {
      const res = await fetch(`${gateway.url}/functions/v1/${p}`, { headers: { apikey: gateway.anonKey } });
      expect(res.status, p).toBe(404);
      expect(await res.json()).toEqual({ code: 'NOT_FOUND', message: 'Requested function was not found' });
    }
    const { error } = await invoke(client(), 'does-not-exist');
    expect(((error as FunctionsHttpError).context as Response).status).toBe(404);
  });

  it('serves a function from a config.toml entrypoint', async () => {
    const res = await fetch(fn('custom-entry/x?q=1'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ path: '/custom-entry/x', query: { q: '1' } });
  });
});
