import fs from 'node:fs/promises';
import path from 'node:path';
import { createClient, type FunctionInvokeOptions } from '@supabase/supabase-js';
import { afterAll, beforeAll, vi } from 'vitest';
import WebSocket from 'ws';
import { startBackend, type Backend } from '../../server/backend.ts';
import { backendInfo, type AnyClient } from '../setup/clients.ts';

/** The fixture project the functions tests serve: its own config.toml, functions and .env. */
export const FIXTURE = path.resolve('tests/fixtures/functions/supabase');

export interface FixtureGateway {
  readonly url: string;
  readonly anonKey: string;
  readonly serviceRoleKey: string;
  /** Every line the gateway logged, oldest first. */
  readonly logs: string[];
  /** A supabase-js client on this gateway, with the anon key unless given another. */
  readonly client: (key?: string) => AnyClient;
}

/**
 * A second gateway on the test database serving FIXTURE, for the test file that calls
 * this at its top level: started in beforeAll over a fresh data dir in tests/.tmp named
 * `dirPrefix`…, stopped and its dir removed in afterAll. Its fields are read inside tests.
 */
export function useFixtureGateway(options: { dirPrefix: string; maxBodyBytes?: number }): FixtureGateway {
  // A test here may cold-start several function workers (each loads tsx and the function's
  // packages on its own thread); on a busy two-core machine that alone can take most of the
  // default 30 s, so the bound is wider. A hung request still fails, just later.
  vi.setConfig({ testTimeout: 120_000 });
  let gateway: Backend | undefined;
  let dataDir: string | undefined;
  const logs: string[] = [];

  beforeAll(async () => {
    await fs.mkdir(path.resolve('tests/.tmp'), { recursive: true });
    dataDir = await fs.mkdtemp(path.resolve(`tests/.tmp/${options.dirPrefix}`));
    gateway = await startBackend({
      externalDatabaseUrl: backendInfo().databaseUrl,
      port: 0,
      dataDir,
      supabaseDir: FIXTURE,
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
      logRequests: false,
      log: (line) => logs.push(line),
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  const started = (): Backend => {
    if (!gateway) throw new Error('the fixture gateway is not running: read it inside a test');
    return gateway;
  };
  return {
    get url() {
      return started().url;
    },
    get anonKey() {
      return started().anonKey;
    },
    get serviceRoleKey() {
      return started().serviceRoleKey;
    },
    logs,
    client: (key = started().anonKey) =>
      createClient(started().url, key, {
        auth: { persistSession: false, autoRefreshToken: false },
        realtime: { transport: WebSocket as never },
      }),
  };
}

/** functions.invoke with the client's `any` error narrowed to unknown. */
export async function invoke(
  target: Pick<AnyClient, 'functions'>,
  name: string,
  options: FunctionInvokeOptions = {},
): Promise<{ data: unknown; error: unknown; response: Response | undefined }> {
  const result = await target.functions.invoke<unknown>(name, options);
  return { data: result.data, error: result.error as unknown, response: result.response };
}
