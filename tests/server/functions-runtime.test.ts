import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend, type Backend } from '../../server/backend.ts';
import { backendInfo, signedInClient } from '../setup/clients.ts';
import { invoke, useFixtureGateway } from './functions-helpers.ts';

/**
 * The Deno runtime on Node: hosted's environment variables, Deno-style imports, and
 * functions side by side in their own workers. Serves tests/fixtures/functions/supabase.
 */

const gateway = useFixtureGateway({ dirPrefix: 'functions-rt-' });
const { logs, client } = gateway;

interface EnvReport {
  url: string;
  anonKey: string;
  serviceKey: string;
  dbUrl: string;
  secret: string;
  plain: string;
  keys: string[];
  echoed: { body: unknown; headers: Record<string, string> } | null;
  echoError: string | null;
  openStatus: number;
  db: { who: string; answer: number };
}

describe('functions: environment', () => {
  it('gives hosted variables that work: SUPABASE_URL + service key call back through the gateway, SUPABASE_DB_URL connects', async () => {
    const { data, error } = await invoke(client(), 'env', { body: {} });
    expect(error).toBeNull();
    const env = data as EnvReport;
    expect(env.url).toBe(gateway.url);
    expect(env.anonKey).toBe(gateway.anonKey);
    expect(env.serviceKey).toBe(gateway.serviceRoleKey);
    expect(env.dbUrl).toBe(backendInfo().databaseUrl);
    // supabase-js inside the function, with the service key, through verify_jwt = true.
    expect(env.echoError).toBeNull();
    expect(env.echoed?.body).toEqual({ from: 'env' });
    expect(env.echoed?.headers.authorization).toBe(`Bearer ${gateway.serviceRoleKey}`);
    expect(env.openStatus).toBe(200);
    expect(env.db).toEqual({ who: 'postgres', answer: 42 });
  });

  it('loads functions/.env but never lets it override SUPABASE_* variables, and exposes nothing else of the host', async () => {
    const { data } = await invoke(client(), 'env', { body: {} });
    const env = data as EnvReport;
    expect(env.secret).toBe('from dotenv');
    expect(env.plain).toBe('plain-value');
    expect(env.url).not.toContain('must-not-override');
    expect(logs.some((line) => line.includes('SUPABASE_URL is reserved'))).toBe(true);
    expect(env.keys).not.toContain('PATH');
    expect(env.keys).not.toContain('HOME');
    expect(env.keys).toEqual(
      expect.arrayContaining([
        'SUPABASE_URL',
        'SUPABASE_ANON_KEY',
        'SUPABASE_SERVICE_ROLE_KEY',
        'SUPABASE_DB_URL',
        'FIXTURE_SECRET',
      ]),
    );
  });
});

describe('functions: acting as the caller', () => {
  it("resolves the signed-in caller through auth with the caller's own JWT", async () => {
    const { session, user, email } = await signedInClient('fn-caller');
    const caller = client();
    caller.functions.setAuth(session.access_token);
    const { data, error } = await invoke(caller, 'whoami', { body: {} });
    expect(error).toBeNull();
    expect(data).toEqual({ id: user.id, email });
  });
});

describe('functions: imports as on hosted', () => {
  it('resolves npm:, jsr:, esm.sh, deno.json bare imports and type-only .d.ts imports to the installed packages', async () => {
    const { data, error } = await invoke(client(), 'imports', { method: 'GET' });
    expect(error).toBeNull();
    expect(data).toEqual({
      same: true,
      createClient: 'function',
      hasFunctions: 'function',
      sharedCors: '*',
      npmCors: 'object',
    });
  });
});

describe('functions: the Deno runtime surface', () => {
  it('offers Deno.serve options, env, readTextFile, errors, version, EdgeRuntime.waitUntil and WebSocket, and refuses Deno.exit', async () => {
    const first = await invoke(client(), 'runtime-api', { method: 'GET' });
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({
      listened: true,
      exit: 'PermissionDenied',
      file: 'static file beside the function',
      missing: 'NotFound',
      deno: 'string',
      webSocket: 'function',
      signal: true,
      remote: 'string',
      envHas: true,
    });
    // The waitUntil task of the first call finishes in the background, after the response:
    // a later call sees it done (asked until it is, with a generous bound).
    let background = '';
    for (let i = 0; i < 200 && background !== 'done'; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const later = await invoke(client(), 'runtime-api', { method: 'GET' });
      background = (later.data as { background: string }).background;
    }
    expect(background).toBe('done');
  });

  it("uses the function's own onError response when its handler throws", async () => {
    const res = await fetch(`${gateway.url}/functions/v1/on-error`, { headers: { apikey: gateway.anonKey } });
    expect(res.status).toBe(418);
    expect(await res.text()).toBe('handled: teapot');
  });
});

describe('functions: isolation', () => {
  it('keeps two functions loaded side by side apart: own handler, own module state, own env', async () => {
    const calls = Array.from({ length: 20 }, (_, i) =>
      invoke(client(), i % 2 === 0 ? 'counter-a' : 'counter-b', { body: {} }),
    );
    const results = (await Promise.all(calls)).map((r) => r.data as { name: string; count: number; owner: string });
    for (const [i, result] of results.entries()) {
      const expected = i % 2 === 0 ? 'counter-a' : 'counter-b';
      expect(result.name).toBe(expected);
      expect(result.owner).toBe(expected);
    }
    const counts = (name: string) =>
      results
        .filter((r) => r.name === name)
        .map((r) => r.count)
        .sort((a, b) => a - b);
    expect(counts('counter-a')).toEqual(counts('counter-b'));
    expect(new Set(counts('counter-a')).size).toBe(10);
  });

  it('keeps serving other functions while one is failing, and serves concurrent requests of one function', async () => {
    const mixed = await Promise.all([
      fetch(`${gateway.url}/functions/v1/throw-async`, { headers: { apikey: gateway.anonKey } }),
      fetch(`${gateway.url}/functions/v1/open`),
      fetch(`${gateway.url}/functions/v1/throw-sync`, { headers: { apikey: gateway.anonKey } }),
      fetch(`${gateway.url}/functions/v1/open`),
    ]);
    expect(mixed.map((r) => r.status)).toEqual([500, 200, 500, 200]);
    const streams = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${gateway.url}/functions/v1/stream?n=3`).then((r) => r.text())),
    );
    expect(streams).toEqual(Array.from({ length: 5 }, () => 'chunk 0\nchunk 1\nchunk 2\n'));
  });

  it('survives a client that disconnects in the middle of a streamed response', async () => {
    const controller = new AbortController();
    const res = await fetch(`${gateway.url}/functions/v1/stream?n=1000`, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => undefined);
    const after = await fetch(`${gateway.url}/functions/v1/stream?n=2`);
    expect(await after.text()).toBe('chunk 0\nchunk 1\n');
  });

  it('stops a function that blocks its thread with 546 WORKER_LIMIT while other functions keep answering', async () => {
    const spinning = fetch(`${gateway.url}/functions/v1/spin`, { headers: { apikey: gateway.anonKey } });
    // While spin holds its own thread, another function answers.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const other = await fetch(`${gateway.url}/functions/v1/open`);
    expect(other.status).toBe(200);
    const res = await spinning;
    expect(res.status).toBe(546);
    expect(await res.json()).toEqual({
      code: 'WORKER_LIMIT',
      message: 'Worker failed to respond due to a resource limit (please check logs)',
    });
    expect(logs.some((line) => line.startsWith('[functions:spin]') && line.includes('terminated'))).toBe(true);
  });
});

// Outside the repository: no package.json with "type": "module" and no node_modules above,
// as with `--functions-dir` pointing elsewhere. Deno code must still load as ESM with packages.
describe('functions: a project outside the tree, reloaded on change', () => {
  let hot: Backend;
  let dir: string;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'chartroom-functions-hot-'));
    await fs.mkdir(path.join(dir, 'supabase/functions/hot'), { recursive: true });
    await fs.mkdir(path.join(dir, 'supabase/functions/_shared'), { recursive: true });
    await fs.writeFile(path.join(dir, 'supabase/functions/_shared/word.ts'), "export const word = 'one';\n");
    await fs.writeFile(
      path.join(dir, 'supabase/functions/hot/index.ts'),
      [
        "import { createClient } from 'npm:@supabase/supabase-js@2';",
        "import { word } from '../_shared/word.ts';",
        'const ready = await Promise.resolve(typeof createClient);',
        "Deno.serve(() => new Response(ready === 'function' ? word : 'no supabase-js'));",
      ].join('\n'),
    );
    await fs.writeFile(path.join(dir, 'supabase/config.toml'), '[functions.hot]\nverify_jwt = false\n');
    hot = await startBackend({
      externalDatabaseUrl: backendInfo().databaseUrl,
      port: 0,
      dataDir: dir,
      supabaseDir: path.join(dir, 'supabase'),
      logRequests: false,
      log: () => undefined,
    });
  });

  afterAll(async () => {
    await hot?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** Asks until the function answers `expected`; the bound is generous (a loaded machine reloads slowly). */
  async function eventually(expected: string): Promise<void> {
    let last = '';
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      last = await (await fetch(`${hot.url}/functions/v1/hot`)).text();
      if (last === expected) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(last).toBe(expected);
  }

  it('loads Deno-style ESM with npm: packages, then serves new code after a shared module changes', async () => {
    await eventually('one');
    await fs.writeFile(path.join(dir, 'supabase/functions/_shared/word.ts'), "export const word = 'two';\n");
    await eventually('two');
  });

  it('serves a function added while running, and reads a changed verify_jwt', async () => {
    await fs.mkdir(path.join(dir, 'supabase/functions/added'), { recursive: true });
    await fs.writeFile(
      path.join(dir, 'supabase/functions/added/index.ts'),
      "Deno.serve(() => new Response('added'));\n",
    );
    const locked = await fetch(`${hot.url}/functions/v1/added`);
    expect(locked.status).toBe(401);
    await fs.writeFile(
      path.join(dir, 'supabase/config.toml'),
      '[functions.hot]\nverify_jwt = false\n[functions.added]\nverify_jwt = false\n',
    );
    const open = await fetch(`${hot.url}/functions/v1/added`);
    expect(open.status).toBe(200);
    expect(await open.text()).toBe('added');
  });
});
