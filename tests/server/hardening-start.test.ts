import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackend } from '../../server/backend.ts';
import { verifyJwt } from '../../server/jwt.ts';
import { backendOptionsFromArgs, describeBackend } from '../../server/main.ts';
import { backendInfo } from '../setup/clients.ts';
import { freePort } from '../setup/ports.ts';

/** Start-up refusals that must never cost data, and the command line's secret and origins. */

const tmpDirs: string[] = [];
async function tmpDataDir(): Promise<string> {
  await fs.mkdir(path.resolve('tests/.tmp'), { recursive: true });
  const dir = await fs.mkdtemp(path.resolve('tests/.tmp/start-'));
  tmpDirs.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of tmpDirs) await fs.rm(dir, { recursive: true, force: true });
});

describe('data directory start-up', () => {
  it('refuses a non-empty data directory without PG_VERSION, naming the problem, and deletes nothing', async () => {
    const dataDir = await tmpDataDir();
    const db = path.join(dataDir, 'db');
    await fs.mkdir(path.join(db, 'base', '5'), { recursive: true });
    await fs.writeFile(path.join(db, 'base', '5', '16384'), 'precious rows');
    await fs.writeFile(path.join(db, 'postgresql.conf'), '# kept\n');
    const started = startBackend({
      dataDir,
      dbPort: await freePort(),
      port: 0,
      logRequests: false,
      log: () => undefined,
    });
    await expect(started).rejects.toThrow(/not empty but has no PG_VERSION/);
    expect(await fs.readFile(path.join(db, 'base', '5', '16384'), 'utf8')).toBe('precious rows');
    expect(await fs.readFile(path.join(db, 'postgresql.conf'), 'utf8')).toBe('# kept\n');
  });

  it('says why PostgreSQL failed to start instead of "undefined"', async () => {
    const dataDir = await tmpDataDir();
    const db = path.join(dataDir, 'db');
    await fs.mkdir(db, { recursive: true });
    // A data directory of another major version: PostgreSQL 17 refuses it with a FATAL line.
    await fs.writeFile(path.join(db, 'PG_VERSION'), '16\n');
    let message = '';
    try {
      await startBackend({ dataDir, dbPort: await freePort(), port: 0, logRequests: false, log: () => undefined });
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).toMatch(/^PostgreSQL failed to start \(exit code \d+\): .*postgresql.conf/);
    expect(message).not.toContain('undefined');
    expect(await fs.readFile(path.join(db, 'PG_VERSION'), 'utf8')).toBe('16\n');
  });
});

describe('--jwt-secret and allowed origins', () => {
  const secret = 'a-test-secret-that-is-long-enough-for-hs256-0123456789';
  let gateway: Awaited<ReturnType<typeof startBackend>> | undefined;

  beforeAll(async () => {
    const options = backendOptionsFromArgs([
      '--jwt-secret',
      secret,
      '--allowed-origin',
      'https://chartroom.example',
      '--port',
      '0',
    ]);
    expect(options.jwtSecret).toBe(secret);
    gateway = await startBackend({
      ...options,
      externalDatabaseUrl: backendInfo().databaseUrl,
      dataDir: await tmpDataDir(),
      logRequests: false,
      log: () => undefined,
    });
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it('mints and prints keys from the given secret; the demo keys stop working', async () => {
    const g = gateway!;
    expect(verifyJwt(g.anonKey, secret).role).toBe('anon');
    expect(verifyJwt(g.serviceRoleKey, secret).role).toBe('service_role');
    const printed = describeBackend(g);
    expect(printed).toContain(g.anonKey);
    expect(printed).toContain(g.serviceRoleKey);
    const ok = await fetch(`${g.url}/rest/v1/projects?select=id`, { headers: { apikey: g.anonKey } });
    expect(ok.status).toBe(200);
    const demo = await fetch(`${g.url}/rest/v1/projects?select=id`, { headers: { apikey: backendInfo().anonKey } });
    expect(demo.status).toBe(401);
  });

  it('refuses a secret shorter than 32 characters', () => {
    expect(() => backendOptionsFromArgs(['--jwt-secret', 'short'])).toThrow(/at least 32 characters/);
  });

  it('answers CORS for a configured origin and not for others', async () => {
    const g = gateway!;
    const allowed = await fetch(`${g.url}/auth/v1/health`, { headers: { origin: 'https://chartroom.example' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://chartroom.example');
    const other = await fetch(`${g.url}/auth/v1/health`, { headers: { origin: 'https://other.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
