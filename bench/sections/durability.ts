import pg from 'pg';
import { SYNCHRONOUS_COMMIT } from '../../server/postgres/cluster.ts';
import { benchBackend } from '../backend.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

const COMMITS = 600;
const BLOCK = 50;

/**
 * What durable commits cost. The embedded cluster runs with synchronous_commit = on: a
 * commit is acknowledged once its WAL is on disk, so neither a PostgreSQL crash nor a
 * power loss can take back an acknowledged write. With off, PostgreSQL acknowledges
 * before the flush and a crash of the OS or the machine can lose the last few hundred
 * milliseconds of acknowledged commits. Both are measured here in the same session
 * (the setting is per session), alternating blocks so the machine's noise hits both alike.
 */
export async function run(ctx: BenchContext): Promise<void> {
  ctx.section(
    `durability: one-row insert commits, synchronous_commit on vs off (server default: ${SYNCHRONOUS_COMMIT}; ${COMMITS} each)`,
  );
  const backend = await benchBackend();
  const db = new pg.Client({ connectionString: backend.databaseUrl });
  await db.connect();
  try {
    await db.query('create table public.bench_durable (id bigserial primary key, body text not null)');
    const samples: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const text = 'insert into public.bench_durable (body) values ($1)';
    for (let i = 0; i < 100; i++) await db.query({ name: 'durable', text, values: ['warm'] });
    for (let done = 0; done < COMMITS; done += BLOCK) {
      for (const mode of ['on', 'off'] as const) {
        await db.query(`set synchronous_commit = ${mode}`);
        for (let i = 0; i < BLOCK; i++) {
          const t = process.hrtime.bigint();
          await db.query({ name: 'durable', text, values: [`row ${done + i}`] });
          samples[mode].push(since(t));
        }
      }
    }
    const on = summarize(samples.on);
    const off = summarize(samples.off);
    ctx.report('commit, synchronous_commit = on, p50 / p99', `${ms(on.p50)} / ${ms(on.p99)}`);
    ctx.report('commit, synchronous_commit = off, p50 / p99', `${ms(off.p50)} / ${ms(off.p99)}`);
    ctx.report('on / off (p50, p99)', `x${(on.p50 / off.p50).toFixed(2)} / x${(on.p99 / off.p99).toFixed(2)}`);
  } finally {
    await db.end();
    await backend.cleanup();
  }
}
