import { readFile } from 'node:fs/promises';

/**
 * The part of Deno's runtime API that Supabase edge functions use, on Node, installed as
 * `globalThis.Deno` (and `EdgeRuntime`) inside one function's worker. `Deno.serve` does
 * not listen: it records the handler, which the worker calls for each bridged request.
 */

export interface ServeInfo {
  remoteAddr: { transport: 'tcp'; hostname: string; port: number };
  completed: Promise<void>;
}

export type ServeHandler = (request: Request, info: ServeInfo) => Response | Promise<Response>;

export interface ServeOptions {
  handler?: ServeHandler;
  onError?: (error: unknown) => Response | Promise<Response>;
  onListen?: (addr: { hostname: string; port: number; transport: 'tcp' }) => void;
  port?: number;
  hostname?: string;
  signal?: AbortSignal;
}

export interface Served {
  handler: ServeHandler;
  onError: ServeOptions['onError'];
}

class PermissionDenied extends Error {
  override name = 'PermissionDenied';
}
class NotFound extends Error {
  override name = 'NotFound';
}

function envApi() {
  return {
    get: (key: string): string | undefined => process.env[key],
    set: (key: string, value: string): void => {
      process.env[key] = value;
    },
    delete: (key: string): void => {
      delete process.env[key];
    },
    has: (key: string): boolean => key in process.env,
    toObject: (): Record<string, string> => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
      return out;
    },
  };
}

async function readFileOr404<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFound(String((error as Error).message));
    throw error;
  }
}

/**
 * Installs the globals and returns a getter for the handler the function registered.
 * The first `Deno.serve` wins: a function is one server on hosted, and a second call is
 * a bug worth a log line rather than a silent swap of handlers.
 */
export function installDenoGlobals(log: (line: string) => void): () => Served | null {
  let served: Served | null = null;
  const serve = (first: ServeHandler | ServeOptions, second?: ServeHandler) => {
    const options: ServeOptions = typeof first === 'function' ? {} : first;
    const handler = typeof first === 'function' ? first : (second ?? first.handler);
    if (typeof handler !== 'function') throw new TypeError('Deno.serve: a handler function is required');
    if (served) log('Deno.serve was called more than once; the first handler keeps serving');
    else served = { handler, onError: options.onError };
    const addr = { hostname: options.hostname ?? '0.0.0.0', port: options.port ?? 8000, transport: 'tcp' as const };
    options.onListen?.(addr);
    return {
      addr,
      finished: new Promise<void>(() => undefined),
      shutdown: () => Promise.resolve(),
      ref: () => undefined,
      unref: () => undefined,
    };
  };
  const deno = {
    serve,
    env: envApi(),
    exit: (): never => {
      throw new PermissionDenied('Deno.exit is not allowed in an edge function');
    },
    cwd: () => process.cwd(),
    readTextFile: (path: string | URL) => readFileOr404(() => readFile(path, 'utf8')),
    readFile: (path: string | URL) => readFileOr404(async () => new Uint8Array(await readFile(path))),
    version: { deno: '2.1.4', v8: process.versions.v8, typescript: '5.6.2' },
    build: {
      os: process.platform === 'win32' ? 'windows' : process.platform,
      arch: process.arch === 'arm64' ? 'aarch64' : 'x86_64',
    },
    errors: { PermissionDenied, NotFound },
  };
  const edgeRuntime = {
    // Background work outlives the response on hosted; here the worker simply keeps running.
    waitUntil: (promise: Promise<unknown>) => {
      promise.catch((error: unknown) => log(`EdgeRuntime.waitUntil task failed: ${describe(error)}`));
    },
  };
  Object.defineProperty(globalThis, 'Deno', { value: deno, configurable: true, writable: true });
  Object.defineProperty(globalThis, 'EdgeRuntime', { value: edgeRuntime, configurable: true, writable: true });
  return () => served;
}

export function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
