import type { SupabaseClient } from '@supabase/supabase-js';
import { type Observable } from 'rxjs';
import type { Op } from '../../lib/model/op-types.ts';
import type { TimelineError, TimelineFact, TimelinePort, TimelineResult } from '../../lib/ports/timeline.ts';
import type { AuthoredOp, SimulationMark, SimulationStart } from '../../lib/timeline/types.ts';
import type { Database, Tables } from './database.types.ts';
import { factsAs, tableChanges } from './realtime.ts';

/**
 * A machine's timeline over Supabase: `machine_ops` rows (with author and time; the
 * table's "read with the machine" policy decides who reads them), the machine's
 * `simulations` and `simulation_events` rows, and one channel of postgres changes,
 * `timeline:<machine>`, of the latter two filtered by machine (RLS applies to it too).
 */

type Client = SupabaseClient<Database>;
const PAGE = 1000;

interface ErrorLike {
  code?: string;
  message?: string;
}

/** By SQLSTATE, never by message; an error without a code never reached Postgres. */
export function describeTimelineError(error: unknown, action: string): TimelineError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  if (error instanceof TypeError || !e.code)
    return { code: 'network', message: `Couldn't ${action}: can't reach the server.` };
  if (e.code === 'PGRST116' || e.code === 'P0002' || e.code === '42501')
    return { code: 'not_found', message: `Couldn't ${action}: it no longer exists or you no longer have access.` };
  return { code: 'unknown', message: `Couldn't ${action}${e.message ? `: ${e.message}` : '.'}` };
}

const toAuthoredOp = (row: Pick<Tables<'machine_ops'>, 'seq' | 'batch_id' | 'author' | 'created_at' | 'op'>) =>
  ({
    seq: row.seq,
    batchId: row.batch_id,
    author: row.author,
    at: row.created_at,
    // Ops were checked by commit_machine_ops; the model skips any that do not apply.
    op: row.op as unknown as Op,
  }) satisfies AuthoredOp;

const toStart = (
  row: Pick<Tables<'simulations'>, 'id' | 'created_by' | 'created_at' | 'machine_version' | 'forked_from'>,
) =>
  ({
    id: row.id,
    createdBy: row.created_by,
    at: row.created_at,
    machineVersion: row.machine_version,
    forkedFrom: row.forked_from,
  }) satisfies SimulationStart;

const toMark = (
  row: Pick<Tables<'simulation_events'>, 'simulation_id' | 'seq' | 'sender' | 'kind' | 'type' | 'created_at'>,
) =>
  ({
    simulationId: row.simulation_id,
    seq: row.seq,
    sender: row.sender,
    kind: row.kind === 'time' ? 'time' : 'event',
    type: row.type,
    at: row.created_at,
  }) satisfies SimulationMark;

async function attempt<T>(action: string, call: () => Promise<TimelineResult<T>>): Promise<TimelineResult<T>> {
  try {
    return await call();
  } catch (error) {
    return { ok: false, error: describeTimelineError(error, action) };
  }
}

/** Every page of a read, `PAGE` rows at a time. */
async function allPages<R>(
  read: (from: number, to: number) => PromiseLike<{ data: R[] | null; error: unknown }>,
): Promise<{ rows: R[]; error: unknown }> {
  const rows: R[] = [];
  for (let from = 0; ; from += PAGE) {
    const { data, error } = await read(from, from + PAGE - 1);
    if (error || !data) return { rows, error: error ?? new Error('no data') };
    rows.push(...data);
    if (data.length < PAGE) return { rows, error: null };
  }
}

export function createTimelineAdapter(client: Client): TimelinePort {
  return {
    opsSince: (machineId, after) =>
      attempt('read the edit history', async () => {
        const ops: AuthoredOp[] = [];
        for (let last = after; ;) {
          const { data, error } = await client
            .from('machine_ops')
            .select('seq, batch_id, author, created_at, op')
            .eq('machine_id', machineId)
            .gt('seq', last)
            .order('seq')
            .limit(PAGE);
          if (error) return { ok: false, error: describeTimelineError(error, 'read the edit history') };
          ops.push(...data.map(toAuthoredOp));
          const end = data[data.length - 1];
          if (data.length < PAGE || !end) return { ok: true, value: ops };
          last = end.seq;
        }
      }),

    simulations: (machineId) =>
      attempt('read the simulations', async () => {
        const sims = await allPages((from, to) =>
          client
            .from('simulations')
            .select('id, created_by, created_at, machine_version, forked_from')
            .eq('machine_id', machineId)
            .order('created_at')
            .order('id')
            .range(from, to),
        );
        if (sims.error) return { ok: false, error: describeTimelineError(sims.error, 'read the simulations') };
        const events = await allPages((from, to) =>
          client
            .from('simulation_events')
            .select('simulation_id, seq, sender, kind, type, created_at')
            .eq('machine_id', machineId)
            .order('created_at')
            .order('simulation_id')
            .order('seq')
            .range(from, to),
        );
        if (events.error) return { ok: false, error: describeTimelineError(events.error, 'read the simulations') };
        return { ok: true, value: { starts: sims.rows.map(toStart), marks: events.rows.map(toMark) } };
      }),

    facts$: (machineId) => timelineFacts(client, machineId),
  };
}

/** Simulations started and events sent on one machine, live; a dropped channel is a lost stream. */
export function timelineFacts(client: Client, machineId: string): Observable<TimelineFact> {
  return tableChanges(client, `timeline:${machineId}`, [
    { table: 'simulations', filter: `machine_id=eq.${machineId}` },
    { table: 'simulation_events', filter: `machine_id=eq.${machineId}` },
  ]).pipe(
    factsAs((fact): TimelineFact | null => {
      if (fact.type === 'status')
        return fact.status === 'subscribed' ? { type: 'timeline.subscribed' } : { type: 'timeline.lost' };
      if (fact.type !== 'change' || fact.change.kind !== 'insert') return null;
      const change = fact.change;
      if (change.table === 'simulations')
        return { type: 'timeline.simulationStarted', simulation: toStart(change.row as Tables<'simulations'>) };
      return { type: 'timeline.eventsSent', marks: [toMark(change.row as Tables<'simulation_events'>)] };
    }),
  );
}
