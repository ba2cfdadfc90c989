import { spawn } from 'node:child_process';
import http from 'node:http';
import pg from 'pg';
import { benchBackend } from '../backend.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

const ROWS = 10_000;
const SEQUENTIAL = 2000;
const CONCURRENCY = 16;
const DURATION_MS = 5000;

function get(agent: http.Agent, base: URL, path: string, apikey: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, path, agent, headers: { apikey, 'accept-profile': 'public' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function sequential(n: number, once: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await once(i);
    samples.push(since(t));
  }
  return samples;
}

/** Requests per second with `workers` loops issuing requests back to back for `durationMs`. */
async function throughput(workers: number, durationMs: number, once: (i: number) => Promise<unknown>): Promise<number> {
  const end = Date.now() + durationMs;
  let done = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      let i = w;
      while (Date.now() < end) {
        await once(i);
        i += workers;
        done++;
      }
    }),
  );
  return done / (durationMs / 1000);
}

/**
 * The same load from a separate Node process, so the client's own CPU does not share the
 * server's event loop. Prints `{"p50":..,"rps":..}`.
 */
const CHILD_CLIENT = `
const http = require('node:http');
const [port, key, n, workers, ms, rows] = process.argv.slice(1);
const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
const many = new http.Agent({ keepAlive: true, maxSockets: Number(workers) });
const get = (agent, i) => new Promise((resolve, reject) => {
  const req = http.request({ host: '127.0.0.1', port, agent, headers: { apikey: key },
    path: '/rest/v1/bench_items?select=*&id=eq.' + ((i % Number(rows)) + 1) }, (res) => { res.resume(); res.on('end', resolve); });
  req.on('error', reject); req.end();
});
(async () => {
  const samples = [];
  for (let i = 0; i < Number(n); i++) { const t = performance.now(); await get(one, i); samples.push(performance.now() - t); }
  samples.sort((a, b) => a - b);
  const end = Date.now() + Number(ms); let done = 0;
  await Promise.all(Array.from({ length: Number(workers) }, async (_, w) => { let i = w; while (Date.now() < end) { await get(many, i); i += Number(workers); done++; } }));
  console.log(JSON.stringify({ p50: samples[Math.floor(samples.length / 2)], p99: samples[Math.floor(samples.length * 0.99)], rps: done / (Number(ms) / 1000) }));
  process.exit(0);
})();
`;

function childClient(port: number, key: string): Promise<{ p50: number; p99: number; rps: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      '-e',
      CHILD_CLIENT,
      String(port),
      key,
      String(SEQUENTIAL),
      String(CONCURRENCY),
      String(DURATION_MS),
      String(ROWS),
    ]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      try {
        resolve(JSON.parse(out) as { p50: number; p99: number; rps: number });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** REST primary-key reads against the same select issued straight through node-postgres. */
export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('REST (/rest/v1) primary-key select');
  const backend = await benchBackend();
  const admin = new pg.Client({ connectionString: backend.databaseUrl });
  await admin.connect();
  try {
    await admin.query(`create table public.bench_items (id int primary key, name text not null, qty int not null);
      insert into public.bench_items select i, 'item ' || i, i % 100 from generate_series(1, ${ROWS}) i;
      grant select on public.bench_items to anon;
      analyze public.bench_items;`);
    const base = new URL(backend.url);
    const key = backend.anonKey;
    const path = (i: number) => `/rest/v1/bench_items?select=*&id=eq.${(i % ROWS) + 1}`;
    const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 100; i++) {
      if ((await get(one, base, path(0), key)) === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await sequential(300, (i) => get(one, base, path(i), key));
    const rest = summarize(await sequential(SEQUENTIAL, (i) => get(one, base, path(i), key)));
    ctx.report(`REST p50, one connection (${SEQUENTIAL} requests)`, ms(rest.p50), '< 2 ms');
    ctx.report('REST p99, one connection', ms(rest.p99));

    const direct = new pg.Client({ connectionString: backend.databaseUrl });
    await direct.connect();
    const text = 'select * from public.bench_items where id = $1';
    await sequential(300, (i) => direct.query({ name: 'bench_pk', text, values: [(i % ROWS) + 1] }));
    const base1 = summarize(
      await sequential(SEQUENTIAL, (i) => direct.query({ name: 'bench_pk', text, values: [(i % ROWS) + 1] })),
    );
    await direct.end();
    ctx.report('node-postgres p50, same select (baseline)', ms(base1.p50));
    ctx.report('node-postgres p99', ms(base1.p99));
    ctx.report('REST/pg p50 ratio', `${(rest.p50 / base1.p50).toFixed(1)}x`);

    const many = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    await throughput(CONCURRENCY, 500, (i) => get(many, base, path(i), key));
    const rps = await throughput(CONCURRENCY, DURATION_MS, (i) => get(many, base, path(i), key));
    ctx.report(`REST requests/s, ${CONCURRENCY} concurrent clients, ${DURATION_MS / 1000} s`, rps.toFixed(0), '> 3000');
    // The floor of this machine's HTTP path: the gateway answering 404 without any service or database.
    const floor = await throughput(CONCURRENCY, 2000, () => get(many, base, '/no-such-service', key));
    ctx.report(`gateway 404 requests/s, ${CONCURRENCY} concurrent (HTTP floor, no database)`, floor.toFixed(0));
    const separate = await childClient(Number(base.port), key);
    ctx.report('REST p50, one connection, client in another process', ms(separate.p50), '< 2 ms');
    ctx.report('REST p99, one connection, client in another process', ms(separate.p99));
    ctx.report(
      `REST requests/s, ${CONCURRENCY} concurrent, client in another process`,
      separate.rps.toFixed(0),
      '> 3000',
    );
    const pool = new pg.Pool({ connectionString: backend.databaseUrl, max: CONCURRENCY });
    const pgRps = await throughput(CONCURRENCY, DURATION_MS, (i) =>
      pool.query({ name: 'bench_pk', text, values: [(i % ROWS) + 1] }),
    );
    await pool.end();
    ctx.report(`node-postgres queries/s, ${CONCURRENCY} concurrent (baseline)`, pgRps.toFixed(0));
    ctx.report('REST/pg throughput ratio', `${(rps / pgRps).toFixed(2)}`);
    one.destroy();
    many.destroy();
  } finally {
    await admin.end();
    await backend.cleanup();
  }
}
