import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { summarize, type Summary } from '../lib.ts';

/**
 * The append before and after 20261127000300_cheaper_append.sql, in one bench run. The
 * old body is read from its migration (20261124000400_checkpoint_every_n_ops.sql), not
 * copied here: `installAppend` puts either body in place as public.commit_machine_ops
 * (so the app's own REST path calls it), and `appendInPostgres` times both inside
 * PostgreSQL with the same inputs, the old one from a scratch schema.
 */

const MIGRATIONS = path.resolve('supabase/migrations');
const BODIES = {
  old: '20261124000400_checkpoint_every_n_ops.sql',
  new: '20261127000300_cheaper_append.sql',
} as const;
export type AppendBody = keyof typeof BODIES;

/** The `create or replace function public.commit_machine_ops(...)` statement of a migration. */
function appendStatement(which: AppendBody): string {
  const text = fs.readFileSync(path.join(MIGRATIONS, BODIES[which]), 'utf8');
  const start = text.indexOf('create or replace function public.commit_machine_ops(');
  const end = text.indexOf('$$;', start);
  if (start < 0 || end < 0) throw new Error(`append baseline: no commit_machine_ops in ${BODIES[which]}`);
  return text.slice(start, end + 3);
}

/** Puts the old or the new body in place as public.commit_machine_ops (same signature and grants). */
export async function installAppend(pool: pg.Pool, which: AppendBody): Promise<void> {
  await pool.query(appendStatement(which));
}

const SCRATCH = 'bench_old_append';

/**
 * Time inside PostgreSQL of one one-op append (clock_timestamp() around the call, lock
 * wait included, the commit's flush not), old and new alternating round by round as A
 * (role and claims set as the REST layer sets them), on the same machine.
 */
export async function appendInPostgres(options: {
  adminDatabaseUrl: string;
  claims: object;
  machineId: string;
  rounds: number;
  warmup: number;
}): Promise<{ old: Summary; new: Summary }> {
  const c = new pg.Client({ connectionString: options.adminDatabaseUrl });
  await c.connect();
  try {
    await c.query(`drop schema if exists ${SCRATCH} cascade; create schema ${SCRATCH}`);
    await c.query(appendStatement('old').replace('public.commit_machine_ops(', `${SCRATCH}.commit_machine_ops(`));
    await c.query(`grant usage on schema ${SCRATCH} to authenticated`);
    const claims = c.escapeLiteral(JSON.stringify(options.claims));
    const time = async (fn: string, i: number): Promise<number> => {
      const ops = JSON.stringify([{ type: 'machine.update', changes: { name: `in postgres ${i}` } }]);
      const results = (await c.query(
        `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${claims}, true);` +
          `select (extract(epoch from t1 - t0) * 1000)::float8 as ms from (select clock_timestamp() as t0, ` +
          `${fn}(${c.escapeLiteral(options.machineId)}::uuid, 'bench-in-pg', ${c.escapeLiteral(randomUUID())}::uuid, ` +
          `${c.escapeLiteral(ops)}::jsonb) as r, clock_timestamp() as t1 offset 0) s`,
      )) as unknown as pg.QueryResult<{ ms: number }>[];
      return results[1]!.rows[0]!.ms;
    };
    const samples = { old: [] as number[], new: [] as number[] };
    for (let i = 1; i <= options.warmup + options.rounds; i++) {
      // Alternate which goes first, so neither always follows the other's commit.
      const order: AppendBody[] = i % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
      for (const which of order) {
        const ms = await time(which === 'old' ? `${SCRATCH}.commit_machine_ops` : 'public.commit_machine_ops', i);
        if (i > options.warmup) samples[which].push(ms);
      }
    }
    return { old: summarize(samples.old), new: summarize(samples.new) };
  } finally {
    await c.query(`drop schema if exists ${SCRATCH} cascade`).catch(() => undefined);
    await c.end();
  }
}
