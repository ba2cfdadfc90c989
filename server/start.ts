import { createReadStream, existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startBackend } from './backend.ts';
import { backendOptionsFromArgs, describeBackend, stopOnSignals } from './main.ts';

/**
 * `npm start`: the embedded backend plus the built web app, served by a small static
 * server that tells the app where the API is. Tests start the same server on free ports.
 */

export interface RuntimeConfig {
  supabaseUrl: string;
  supabaseAnonKey: string;
  /** The embedded backend's mail catcher, linked from the sign-in card's "check your email". */
  mailboxUrl?: string;
}

/** The config the app reads as `window.__CHARTROOM_CONFIG__` (src/adapters/supabase/client.ts). */
export function runtimeConfigScript(config: RuntimeConfig): string {
  // JSON is valid JS; escaping `<` keeps a value from closing the script element.
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return `<script>window.__CHARTROOM_CONFIG__=${json};</script>`;
}

/** Puts the config script first in <head>, so it runs before the (deferred) app module. */
export function injectRuntimeConfig(html: string, config: RuntimeConfig): string {
  const script = runtimeConfigScript(config);
  const head = /<head[^>]*>/i.exec(html);
  if (!head) return script + html;
  const at = head.index + head[0].length;
  return `${html.slice(0, at)}\n    ${script}${html.slice(at)}`;
}

const SOURCES = ['src', 'machines', 'index.html', 'vite.config.ts', 'package.json'];

async function newestMtime(target: string): Promise<number> {
  const stat = await fs.stat(target).catch(() => null);
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of await fs.readdir(target)) newest = Math.max(newest, await newestMtime(path.join(target, entry)));
  return newest;
}

/** True when `outDir` has no build or any app source changed after it was built. */
export async function appNeedsBuild(root: string, outDir: string): Promise<boolean> {
  const built = await fs.stat(path.join(outDir, 'index.html')).catch(() => null);
  if (!built) return true;
  const sources = await Promise.all(SOURCES.map((name) => newestMtime(path.join(root, name))));
  return Math.max(...sources) > built.mtimeMs;
}

/** Builds the app with vite.config.ts into `outDir`. */
export async function buildApp(options: { root: string; outDir: string; quiet?: boolean }): Promise<void> {
  const { build } = await import('vite');
  // Vitest sets NODE_ENV=test, which would give React's development build.
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root: options.root,
      configFile: path.join(options.root, 'vite.config.ts'),
      mode: 'production',
      logLevel: options.quiet ? 'warn' : 'info',
      build: { outDir: options.outDir, emptyOutDir: true, chunkSizeWarningLimit: 1024 },
    });
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

export interface AppServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves a built app: files from `dir` with their content types, immutable caching for
 * Vite's hashed assets, and index.html (with the runtime config) for every other path
 * without a file extension, so client-side routes survive a reload.
 */
export async function serveApp(options: {
  dir: string;
  port: number;
  host?: string;
  runtime: RuntimeConfig;
}): Promise<AppServer> {
  const root = path.resolve(options.dir);
  const host = options.host ?? '127.0.0.1';
  const sendIndex = (res: http.ServerResponse, head: boolean): void => {
    const html = injectRuntimeConfig(readFileSync(path.join(root, 'index.html'), 'utf8'), options.runtime);
    res.writeHead(200, {
      'content-type': CONTENT_TYPES['.html'],
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    res.end(head ? undefined : html);
  };
  const server = http.createServer((req, res) => {
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method Not Allowed');
      return;
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://app').pathname);
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('Bad Request');
      return;
    }
    const file = path.resolve(root, `.${path.posix.normalize(pathname)}`);
    if (pathname.includes('\0') || (file !== root && !file.startsWith(root + path.sep))) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('Bad Request');
      return;
    }
    const ext = path.extname(file).toLowerCase();
    void fs.stat(file).then(
      (stat) => {
        if (!stat.isFile() || path.basename(file) === 'index.html') return sendIndex(res, head);
        res.writeHead(200, {
          'content-type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
          'content-length': stat.size,
          'cache-control': pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
          'x-content-type-options': 'nosniff',
        });
        if (head) res.end();
        else createReadStream(file).pipe(res);
      },
      () => {
        // A missing asset is a 404; a missing page is a client-side route.
        if (ext) res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found');
        else sendIndex(res, head);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Turns EADDRINUSE into a sentence that says which flag to change. */
export function explainListenError(error: unknown, port: number, flag: string): unknown {
  if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
    return new Error(`port ${port} is already in use: stop whatever uses it, or pass ${flag} <port>`);
  }
  return error;
}

/** The seeded login, printed only when this project's seed actually creates it. */
export function demoLogin(supabaseDir: string): string | null {
  const seed = path.join(supabaseDir, 'seed.sql');
  if (!existsSync(seed) || !readFileSync(seed, 'utf8').includes('demo@chartroom.dev')) return null;
  return 'demo@chartroom.dev / chartroom-demo';
}

async function main(): Promise<void> {
  const { appPort, supabaseDir, functionsDir, ...options } = backendOptionsFromArgs(process.argv.slice(2));
  const root = process.cwd();
  const outDir = path.join(root, 'dist');
  const started = Date.now();
  const backend = await startBackend({
    ...options,
    // Links in the mailbox's mails land on the app (GoTrue's site_url).
    ...(appPort ? { auth: { ...options.auth, siteUrl: `http://127.0.0.1:${appPort}` } } : {}),
    ...(supabaseDir ? { supabaseDir } : {}),
    ...(functionsDir ? { functionsDir } : {}),
  });
  const stoppers = [() => Promise.resolve(console.log(backend.summary())), () => backend.stop()];
  stopOnSignals(stoppers);
  let app: AppServer;
  try {
    if (await appNeedsBuild(root, outDir)) {
      console.log('building the app…');
      await buildApp({ root, outDir, quiet: true });
    }
    app = await serveApp({
      dir: outDir,
      port: appPort,
      runtime: { supabaseUrl: backend.url, supabaseAnonKey: backend.anonKey, mailboxUrl: backend.mailboxUrl },
    });
  } catch (error) {
    // Don't leave PostgreSQL running behind a failed start.
    await backend.stop().catch(() => undefined);
    throw explainListenError(error, appPort, '--app-port');
  }
  // Stop serving before the backend goes away.
  stoppers.unshift(() => app.close());
  console.log(describeBackend(backend));
  const login = demoLogin(backend.config.supabaseDir);
  console.log(`\nChartroom  ${app.url}${login ? `\nDemo login ${login}` : ''}`);
  console.log(`ready in ${Date.now() - started} ms${backend.fresh ? ' (new data directory)' : ''}; Ctrl-C stops both`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
