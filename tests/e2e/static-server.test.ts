import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appNeedsBuild, injectRuntimeConfig, serveApp, type AppServer } from '../../server/start.ts';

/** The static server behind `npm start` and the e2e tests, over a small fixture build. */

let root: string;
let dist: string;
let server: AppServer;
const runtime = { supabaseUrl: 'http://127.0.0.1:1234', supabaseAnonKey: 'anon-key' };

/** Raw requests, so paths reach the server exactly as written (no client-side normalising). */
function request(method: string, rawPath: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path: rawPath }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  await fs.mkdir(path.resolve('tests/.tmp'), { recursive: true });
  root = await fs.mkdtemp(path.resolve('tests/.tmp/static-'));
  dist = path.join(root, 'dist');
  await fs.mkdir(path.join(dist, 'assets'), { recursive: true });
  await fs.writeFile(
    path.join(dist, 'index.html'),
    '<!doctype html><html><head><title>t</title></head><body></body></html>',
  );
  await fs.writeFile(path.join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
  await fs.writeFile(path.join(dist, 'assets', 'app-abc123.css'), 'body{}');
  await fs.writeFile(path.join(root, 'secret.txt'), 'outside the web root');
  server = await serveApp({ dir: dist, port: 0, runtime });
});

afterAll(async () => {
  await server?.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe('app static server', () => {
  it('serves index.html with the runtime config first in <head>', async () => {
    const res = await request('GET', '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain(
      `<head>\n    <script>window.__CHARTROOM_CONFIG__=${JSON.stringify(runtime)};</script><title>`,
    );
  });

  it('answers client-side routes with the app', async () => {
    const res = await request('GET', '/projects/42/machines/7?x=1');
    expect(res.status).toBe(200);
    expect(res.body).toContain('__CHARTROOM_CONFIG__');
  });

  it('serves hashed assets with their type and long caching', async () => {
    const js = await request('GET', '/assets/app-abc123.js');
    expect([js.status, js.headers['content-type'], js.body]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'console.log(1)',
    ]);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await request('GET', '/assets/app-abc123.css')).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers a missing asset with 404, not the app', async () => {
    const res = await request('GET', '/assets/gone.js');
    expect(res.status).toBe(404);
  });

  it('never serves files outside the web root', async () => {
    for (const raw of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt']) {
      const res = await request('GET', raw);
      expect(res.body, raw).not.toContain('outside the web root');
    }
    expect((await request('GET', '/%E0%A4%A')).status).toBe(400);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await request('HEAD', '/assets/app-abc123.js');
    expect([head.status, head.body, head.headers['content-length']]).toEqual([200, '', '14']);
    const post = await request('POST', '/');
    expect([post.status, post.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('escapes the config so a value cannot close the script element', () => {
    const html = injectRuntimeConfig('<html><head></head></html>', {
      supabaseUrl: '</script><script>alert(1)</script>',
      supabaseAnonKey: 'k',
    });
    expect(html).not.toContain('</script><script>alert(1)');
    expect(html).toContain('\\u003c/script>');
  });

  it('rebuilds only when there is no build or a source is newer', async () => {
    const project = path.join(root, 'project');
    await fs.mkdir(path.join(project, 'src'), { recursive: true });
    await fs.writeFile(path.join(project, 'src', 'main.tsx'), '');
    const out = path.join(project, 'dist');
    expect(await appNeedsBuild(project, out)).toBe(true);
    await fs.mkdir(out);
    await fs.writeFile(path.join(out, 'index.html'), '');
    const later = new Date(Date.now() + 60_000);
    await fs.utimes(path.join(out, 'index.html'), later, later);
    expect(await appNeedsBuild(project, out)).toBe(false);
    const evenLater = new Date(Date.now() + 120_000);
    await fs.utimes(path.join(project, 'src', 'main.tsx'), evenLater, evenLater);
    expect(await appNeedsBuild(project, out)).toBe(true);
  });
});
