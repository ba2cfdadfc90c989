import path from 'node:path';
import { parseArgs } from 'node:util';
import { startBackend, type Backend } from './backend.ts';
import { DEFAULT_JWT_SECRET } from './config.ts';

/** Flags, then env, then the Supabase CLI's defaults. */
export function backendOptionsFromArgs(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      'db-port': { type: 'string' },
      'data-dir': { type: 'string' },
      'supabase-dir': { type: 'string' },
      'functions-dir': { type: 'string' },
      quiet: { type: 'boolean' },
      verbose: { type: 'boolean' },
      'app-port': { type: 'string' },
      'jwt-secret': { type: 'string' },
      'allowed-origin': { type: 'string', multiple: true },
      // Auth settings the Supabase CLI keeps in config.toml (the auth-js suite's extra instances need them).
      'disable-signup': { type: 'boolean' },
      'disable-anonymous-sign-ins': { type: 'boolean' },
      'email-confirmations': { type: 'boolean' },
      'asymmetric-keys': { type: 'boolean' },
      'signing-keys': { type: 'string' },
    },
    allowPositionals: false,
  });
  const num = (flag: string | undefined, env: string | undefined, fallback: number): number => {
    const raw = flag ?? env;
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`invalid port: ${raw}`);
    return n;
  };
  const dir = (flag: string | undefined, env: string | undefined): string | undefined => {
    const raw = flag ?? env;
    return raw ? path.resolve(raw) : undefined;
  };
  const jwtSecret = values['jwt-secret'] ?? process.env.CHARTROOM_JWT_SECRET;
  // GoTrue and PostgREST refuse HS256 secrets shorter than 32 characters; so do we.
  if (jwtSecret !== undefined && jwtSecret.length < 32)
    throw new Error('--jwt-secret must be at least 32 characters long');
  const origins = [...(values['allowed-origin'] ?? []), ...(process.env.CHARTROOM_ALLOWED_ORIGINS ?? '').split(',')]
    .map((o) => o.trim())
    .filter((o) => o !== '');
  const signingKeysPath = values['signing-keys'] ?? process.env.CHARTROOM_SIGNING_KEYS;
  const auth = {
    ...(values['disable-signup'] ? { disableSignup: true } : {}),
    ...(values['disable-anonymous-sign-ins'] ? { anonymousSignIns: false } : {}),
    ...(values['asymmetric-keys'] ? { asymmetricKeys: true } : {}),
    ...(signingKeysPath ? { signingKeysPath: path.resolve(signingKeysPath) } : {}),
  };
  return {
    ...(Object.keys(auth).length > 0 ? { auth } : {}),
    ...(values['email-confirmations'] ? { autoConfirm: false } : {}),
    ...(jwtSecret !== undefined ? { jwtSecret } : {}),
    ...(origins.length > 0 ? { allowedOrigins: origins } : {}),
    port: num(values.port, process.env.CHARTROOM_API_PORT, 54321),
    dbPort: num(values['db-port'], process.env.CHARTROOM_DB_PORT, 54322),
    appPort: num(values['app-port'], process.env.CHARTROOM_APP_PORT, 5173),
    dataDir: dir(values['data-dir'], process.env.CHARTROOM_DATA_DIR) ?? path.resolve('.chartroom'),
    supabaseDir: dir(values['supabase-dir'], undefined),
    functionsDir: dir(values['functions-dir'], undefined),
    // Concise by default (errors and a summary at stop); --verbose or CHARTROOM_VERBOSE=1 prints every request.
    verbose: !values.quiet && (values.verbose === true || process.env.CHARTROOM_VERBOSE === '1'),
  };
}

/** Stops the backend once on SIGINT/SIGTERM, then exits. */
export function stopOnSignals(stoppers: (() => Promise<void>)[]): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping…`);
    void (async () => {
      for (const stop of stoppers) await stop().catch((e: unknown) => console.error(e));
      process.exit(0);
    })();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export function describeBackend(backend: Backend): string {
  return [
    `API        ${backend.url}`,
    `Mailbox    ${backend.mailboxUrl}`,
    `Database   ${backend.databaseUrl}`,
    `anon key   ${backend.anonKey}`,
    `service    ${backend.serviceRoleKey}`,
    ...(backend.config.auth?.signingKeysPath || backend.config.auth?.asymmetricKeys
      ? [
          `JWT keys   asymmetric: access tokens signed with the first key, public keys at ${backend.url}/auth/v1/.well-known/jwks.json`,
        ]
      : []),
    `JWT secret ${backend.config.jwtSecret === DEFAULT_JWT_SECRET ? 'the Supabase CLI demo secret' : 'from --jwt-secret (keys above are signed with it)'}`,
    `data dir   ${backend.config.dataDir}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { appPort: _appPort, supabaseDir, functionsDir, ...options } = backendOptionsFromArgs(process.argv.slice(2));
  const started = Date.now();
  const backend = await startBackend({
    ...options,
    ...(supabaseDir ? { supabaseDir } : {}),
    ...(functionsDir ? { functionsDir } : {}),
  });
  console.log(describeBackend(backend));
  console.log(`ready in ${Date.now() - started} ms${backend.fresh ? ' (new data directory)' : ''}`);
  stopOnSignals([() => Promise.resolve(console.log(backend.summary())), () => backend.stop()]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
