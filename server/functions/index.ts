import { watch, type FSWatcher } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PayloadTooLargeError, readBody, type RequestContext } from '../gateway/http.ts';
import type { BackendDeps, BackendService } from '../service.ts';
import { relayError } from './errors.ts';
import { BootError, FunctionWorker, WorkerGoneError, WorkerLimitError, type BridgedRequest } from './host.ts';
import { answerRaw } from './host-sockets.ts';
import type { HeaderList, ImportMapData } from './protocol.ts';
import { FunctionsProject, type FunctionSettings } from './project.ts';

/**
 * Edge functions at /functions/v1/<name>[/sub/path]: each `<functionsDir>/<name>/index.ts`
 * runs unchanged, Deno-style, in its own worker thread (see CONTEXT.md in this folder).
 */

/** Resolves npm packages for functions that live outside the project tree (fixtures). */
const PROJECT_ROOT_URL = pathToFileURL(path.resolve(fileURLToPath(import.meta.url), '../../../package.json')).href;
const BOOT_TIMEOUT_MS = 30_000;
const BLOCKED_LIMIT_MS = 5_000;
const NO_BODY = new Set(['GET', 'HEAD']);
/** Hop-by-hop headers stay at the gateway; content-length passes (the body is forwarded whole). */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te']);

/** A WebSocket upgrade keeps the headers Deno.upgradeWebSocket reads. */
const UPGRADE_HEADERS = new Set(['connection', 'upgrade']);

/** The caller's headers, plus the proxy headers a function behind hosted's relay can read. */
function forwardedHeaders(req: IncomingMessage, ip: string, upgrade = false): HeaderList {
  const list: HeaderList = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (!NOT_FORWARDED.has(name) || (upgrade && UPGRADE_HEADERS.has(name))) list.push([name, req.rawHeaders[i + 1]!]);
  }
  const has = (name: string) => list.some(([n]) => n === name);
  if (!has('x-forwarded-for') && ip) list.push(['x-forwarded-for', ip.replace(/^::ffff:/, '')]);
  if (!has('x-forwarded-proto')) list.push(['x-forwarded-proto', 'http']);
  return list;
}

/** The origin the caller used; a Host header that is not a valid authority falls back to the API URL's. */
function origin(req: IncomingMessage, fallback: string): string {
  try {
    return new URL(`http://${req.headers.host ?? ''}`).origin;
  } catch {
    return fallback;
  }
}

export function createFunctionsService(deps: BackendDeps): BackendService {
  const project = new FunctionsProject(deps.config.supabaseDir, deps.config.functionsDir, deps.log);
  const workers = new Map<string, FunctionWorker>();
  /** Every running thread, retired ones included, so stop() ends them all. */
  const threads = new Set<FunctionWorker>();
  let watcher: FSWatcher | null = null;

  /** Any change under the functions directory (a function, _shared, .env, an import map) reloads them all. */
  const reloadOnChange = () => {
    try {
      watcher = watch(deps.config.functionsDir, { recursive: true, persistent: false }, () => {
        for (const worker of workers.values()) worker.retire();
        workers.clear();
      });
      watcher.on('error', (error) =>
        deps.log(`[functions] watching ${deps.config.functionsDir} stopped: ${error.message}`),
      );
    } catch (error) {
      // No functions directory yet: nothing to serve, nothing to watch.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  };

  /** Hosted's variables for every function, after `.env` (which may not override SUPABASE_*). */
  const functionEnv = (): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(project.dotenv())) {
      if (key.startsWith('SUPABASE_')) deps.log(`[functions] .env: ${key} is reserved, skipping`);
      else env[key] = value;
    }
    return {
      ...env,
      SUPABASE_URL: deps.apiUrl(),
      SUPABASE_ANON_KEY: deps.anonKey,
      SUPABASE_SERVICE_ROLE_KEY: deps.serviceRoleKey,
      SUPABASE_DB_URL: deps.databaseUrl,
    };
  };

  /** The function's live worker, started on first use (a cold start) and kept warm after. */
  const workerFor = (name: string, settings: FunctionSettings): FunctionWorker => {
    const existing = workers.get(name);
    if (existing?.alive) return existing;
    let importMap: ImportMapData | null;
    try {
      importMap = project.importMap(settings.importMapPath);
    } catch (error) {
      throw new BootError(
        `import map ${settings.importMapPath}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const log = (line: string) => deps.log(`[functions:${name}] ${line}`);
    const worker = new FunctionWorker({
      setup: {
        name,
        entryUrl: pathToFileURL(settings.entrypoint).href,
        importMap,
        fallbackParentUrl: PROJECT_ROOT_URL,
      },
      env: functionEnv(),
      log,
      bootTimeoutMs: BOOT_TIMEOUT_MS,
      blockedLimitMs: BLOCKED_LIMIT_MS,
    });
    workers.set(name, worker);
    threads.add(worker);
    void worker.stopped.then(() => threads.delete(worker));
    // A function that failed to boot is retried on the next request, as hosted boots a new worker.
    worker.ready.catch(() => {
      if (workers.get(name) === worker) workers.delete(name);
      void worker.close();
    });
    return worker;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> => {
    const [, name = '', ...rest] = ctx.path.split('/');
    const settings = project.settings(name);
    if (!settings) return relayError.notFound(res);
    if (settings.verifyJwt) {
      if (ctx.authError) return relayError.invalidJwt(res);
      if (!ctx.token) return relayError.missingAuthorization(res);
    }
    let body: Buffer | null = null;
    if (!NO_BODY.has(ctx.method)) {
      try {
        body = await readBody(req, deps.config.maxBodyBytes);
      } catch (error) {
        if (error instanceof PayloadTooLargeError) return relayError.payloadTooLarge(res, error.limit);
        throw error;
      }
    }
    // Hosted functions see their own path below the relay: /<name>/sub/path?query.
    const subPath = rest.length > 0 ? `/${rest.join('/')}` : '';
    const request: BridgedRequest = {
      method: ctx.method,
      url: `${origin(req, new URL(deps.apiUrl()).origin)}/${name}${subPath}${ctx.url.search}`,
      headers: forwardedHeaders(req, ctx.ip),
      body,
      remoteAddr: ctx.ip,
    };
    try {
      try {
        await workerFor(name, settings).dispatch(request, res);
      } catch (error) {
        if (!(error instanceof WorkerGoneError)) throw error;
        await workerFor(name, settings).dispatch(request, res);
      }
    } catch (error) {
      const boot = error instanceof BootError;
      deps.log(
        `[functions:${name}] ${boot ? 'boot error' : 'request failed'}: ${error instanceof Error ? error.message : String(error)}`,
      );
      if (res.headersSent) res.destroy();
      else if (boot) relayError.bootError(res);
      else if (error instanceof WorkerLimitError) relayError.workerLimit(res);
      else relayError.workerError(res);
    }
  };

  /** A relay error on a socket that asked to upgrade: the same status and body, as plain HTTP. */
  const refuseUpgrade = (socket: Duplex, status: number, body: object) =>
    answerRaw(socket, status, '', [['content-type', 'application/json']], Buffer.from(JSON.stringify(body)));

  /** A WebSocket upgrade: the function accepts it with Deno.upgradeWebSocket, or answers it as HTTP. */
  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer, ctx: RequestContext): Promise<void> => {
    const [, name = '', ...rest] = ctx.path.split('/');
    const settings = project.settings(name);
    if (!settings)
      return refuseUpgrade(socket, 404, { code: 'NOT_FOUND', message: 'Requested function was not found' });
    if (settings.verifyJwt) {
      if (ctx.authError) return refuseUpgrade(socket, 401, { code: 401, message: 'Invalid JWT' });
      if (!ctx.token) return refuseUpgrade(socket, 401, { code: 401, message: 'Missing authorization header' });
    }
    const subPath = rest.length > 0 ? `/${rest.join('/')}` : '';
    const request: BridgedRequest = {
      method: ctx.method,
      url: `${origin(req, new URL(deps.apiUrl()).origin)}/${name}${subPath}${ctx.url.search}`,
      headers: forwardedHeaders(req, ctx.ip, true),
      body: null,
      remoteAddr: ctx.ip,
    };
    try {
      try {
        await workerFor(name, settings).dispatchUpgrade(request, req, socket, head);
      } catch (error) {
        if (!(error instanceof WorkerGoneError)) throw error;
        await workerFor(name, settings).dispatchUpgrade(request, req, socket, head);
      }
    } catch (error) {
      const boot = error instanceof BootError;
      deps.log(
        `[functions:${name}] ${boot ? 'boot error' : 'upgrade failed'}: ${error instanceof Error ? error.message : String(error)}`,
      );
      if (!socket.writable) return;
      if (boot)
        refuseUpgrade(socket, 503, { code: 'BOOT_ERROR', message: 'Worker failed to boot (please check logs)' });
      else
        refuseUpgrade(socket, 500, {
          code: 'WORKER_ERROR',
          message: 'Function exited due to an error (please check logs)',
        });
    }
  };

  return {
    prefix: '/functions/v1',
    upgrade(req, socket, head, ctx) {
      void upgrade(req, socket, head, ctx);
    },
    // verify_jwt is per function: a function with verify_jwt = false runs even with a bad token.
    tolerateBadToken: true,
    handle,
    start() {
      reloadOnChange();
      return Promise.resolve();
    },
    async close() {
      watcher?.close();
      const all = [...threads];
      workers.clear();
      await Promise.all(all.map((worker) => worker.close()));
    },
  };
}
