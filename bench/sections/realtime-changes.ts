import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import pg from 'pg';
import WebSocket from 'ws';
import { signJwt } from '../../server/jwt.ts';
import { createPool } from '../../server/postgres/pool.ts';
import { createChangeFeed } from '../../server/realtime/changes/index.ts';
import type { BackendDeps } from '../../server/service.ts';
import { benchBackend } from '../backend.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';

/**
 * Postgres changes, commit to receive: 50 distinct signed-in users subscribed through
 * real supabase-js clients to a table under RLS (a team-membership policy, so every
 * change is checked for all 50 and all 50 may see it). Timed from just before the
 * INSERT is sent to each client's callback. In the same run, a feed of our own records
 * when each change comes out of the decoder: the raw replication latency with no RLS
 * and no socket, the baseline the end-to-end figure is read against. A second phase
 * subscribes the same 50 identities to that feed directly, to split the router's and
 * the RLS checks' share from the sockets'.
 */

const SUBSCRIBERS = 50;
const CHANGES = 200;

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export async function run(ctx: BenchContext): Promise<void> {
  const backend = await benchBackend();
  const db = new pg.Client({ connectionString: backend.databaseUrl });
  await db.connect();
  const clients: SupabaseClient[] = [];
  const channels: RealtimeChannel[] = [];
  const pool = createPool(backend.adminDatabaseUrl, 4);
  const baselineFeed = createChangeFeed(
    {
      config: backend.config,
      pool,
      databaseUrl: backend.databaseUrl,
      adminDatabaseUrl: backend.adminDatabaseUrl,
      anonKey: backend.anonKey,
      serviceRoleKey: backend.serviceRoleKey,
      apiUrl: () => backend.url,
      log: () => undefined,
    } satisfies BackendDeps,
    { onChange: (change) => decoded.set(String(change.newRow?.marker), now()) },
  );
  const decoded = new Map<string, number>();
  try {
    const team = randomUUID();
    const users = Array.from({ length: SUBSCRIBERS }, () => randomUUID());
    await db.query(`
      create table public.bench_rc_members (team uuid, user_id uuid, primary key (team, user_id));
      create table public.bench_rc_events (id bigserial primary key, team uuid not null, marker text, body jsonb, at timestamptz default now());
      alter table public.bench_rc_events enable row level security;
      create policy bench_rc_team on public.bench_rc_events for select to authenticated
        using (team in (select m.team from public.bench_rc_members m where m.user_id = auth.uid()));
      grant select on public.bench_rc_members, public.bench_rc_events to authenticated;
      alter publication supabase_realtime add table public.bench_rc_events;
    `);
    await db.query(`insert into public.bench_rc_members select $1, u from unnest($2::uuid[]) u`, [team, users]);

    await baselineFeed.start();
    await baselineFeed.ready();

    const received = new Map<string, number[]>();
    const exp = Math.floor(Date.now() / 1000) + 3600;
    await Promise.all(
      users.map(async (sub, i) => {
        const client = createClient(backend.url, backend.anonKey, {
          auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
          realtime: { transport: WebSocket as never },
        });
        clients.push(client);
        await client.realtime.setAuth(
          signJwt({ sub, role: 'authenticated', aud: 'authenticated', exp }, backend.config.jwtSecret),
        );
        const channel = client
          .channel(`bench-rc-${i}`)
          .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'bench_rc_events' }, (payload) => {
            const marker = String((payload.new as { marker?: string }).marker);
            const list = received.get(marker) ?? [];
            list.push(now());
            received.set(marker, list);
          });
        channels.push(channel);
        await new Promise<void>((resolve, reject) => {
          channel.subscribe((status, error) => {
            const state = `${status}`;
            if (state === 'SUBSCRIBED') resolve();
            else if (state === 'CHANNEL_ERROR' || state === 'TIMED_OUT') reject(error ?? new Error(state));
          });
        });
      }),
    );

    /** Inserts CHANGES rows (after 20 warm-up rows), one at a time, timing every arrival. */
    const measure = async (arrivalsOf: Map<string, number[]>, tag: string) => {
      const all: number[] = [];
      const firsts: number[] = [];
      const decodes: number[] = [];
      let missing = 0;
      for (let i = 0; i < CHANGES + 20; i++) {
        const marker = `${tag}${i}`;
        const sent = now();
        await db.query(`insert into public.bench_rc_events (team, marker, body) values ($1, $2, '{"kind":"edit"}')`, [
          team,
          marker,
        ]);
        const deadline = Date.now() + 3000;
        while ((arrivalsOf.get(marker)?.length ?? 0) < SUBSCRIBERS && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        if (i < 20) continue; // warm-up
        const arrivals = arrivalsOf.get(marker) ?? [];
        missing += SUBSCRIBERS - arrivals.length;
        for (const t of arrivals) all.push(t - sent);
        if (arrivals.length > 0) firsts.push(Math.min(...arrivals) - sent);
        const d = decoded.get(marker);
        if (d !== undefined) decodes.push(d - sent);
      }
      return { every: summarize(all), first: summarize(firsts), decode: summarize(decodes), missing };
    };

    // Phase 1: through the sockets and supabase-js.
    const e2e = await measure(received, 'e');
    for (const channel of channels) await channel.unsubscribe().catch(() => undefined);

    // Phase 2: the same 50 identities on a feed directly (no sockets, no clients): what
    // the router and the RLS checks cost on their own.
    const direct = new Map<string, number[]>();
    const directSubs = users.map((sub, i) =>
      baselineFeed.subscribe(
        { role: 'authenticated', claims: { sub, role: 'authenticated', aud: 'authenticated', exp } },
        [{ id: i + 1, event: 'INSERT', schema: 'public', table: 'bench_rc_events' }],
        (_ids, data) => {
          const marker = String(data.record?.marker);
          const list = direct.get(marker) ?? [];
          list.push(now());
          direct.set(marker, list);
        },
      ),
    );
    const feedOnly = await measure(direct, 'f');
    for (const s of directSubs) s.unsubscribe();

    const base = e2e.decode;
    ctx.section(
      `realtime postgres changes: commit to receive, ${SUBSCRIBERS} users under RLS (n = ${CHANGES} changes per line)`,
    );
    ctx.report('baseline: replication decode, no RLS, no socket p50 / p99', `${ms(base.p50)} / ${ms(base.p99)}`);
    ctx.report(
      `supabase-js end to end, every subscriber (${e2e.every.n}) p50 / p99`,
      `${ms(e2e.every.p50)} / ${ms(e2e.every.p99)}`,
      'p99 < 50 ms',
    );
    ctx.report('supabase-js end to end, first subscriber p50 / p99', `${ms(e2e.first.p50)} / ${ms(e2e.first.p99)}`);
    ctx.report(
      'ratio end-to-end / baseline (p50, p99)',
      `${(e2e.every.p50 / base.p50).toFixed(2)}x / ${(e2e.every.p99 / base.p99).toFixed(2)}x`,
    );
    ctx.report(
      `feed direct (RLS, no sockets), every subscriber p50 / p99`,
      `${ms(feedOnly.every.p50)} / ${ms(feedOnly.every.p99)}`,
    );
    ctx.report('  its decode baseline p50 / p99', `${ms(feedOnly.decode.p50)} / ${ms(feedOnly.decode.p99)}`);
    ctx.report('deliveries missing after 3 s (end to end / direct)', `${e2e.missing} / ${feedOnly.missing}`);
    // Backend, database and all 50 clients share this machine: read the figures against its load.
    ctx.report(
      'machine: cores / 1-min load average at the end',
      `${os.cpus().length} / ${os.loadavg()[0]!.toFixed(1)}`,
    );
  } finally {
    for (const channel of channels) await channel.unsubscribe().catch(() => undefined);
    for (const client of clients) await Promise.resolve(client.realtime.disconnect()).catch(() => undefined);
    await baselineFeed.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await db.end().catch(() => undefined);
    await backend.cleanup();
  }
}
