import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, EMPTY, type Observable, of, share } from 'rxjs';
import type { JsonObject, MachineDefinition } from '../../lib/model/types.ts';
import type {
  SimListStreamEvent,
  SimLogStreamEvent,
  SimResult,
  SimulationError,
  SimulationPort,
  SimulationRecord,
} from '../../lib/ports/simulation.ts';
import type { GuardValues, SimLogEntry } from '../../lib/simulation/types.ts';
import type { Database, Json, Tables } from './database.types.ts';
import { checkpointNow } from './machines.ts';
import { openChannel, tableChanges } from './realtime.ts';

/**
 * Shared simulations over Supabase: the `start_simulation`, `send_simulation_event` and
 * `fork_simulation` functions (which order, check and rate-limit on the server), reads
 * of `simulations` and `simulation_events`, a channel of postgres changes,
 * `simulations:<machine>` (simulations started or changed), and the private broadcast
 * channel `sim-log:<simulation>` (each appended entry, sent by the function). Rows become
 * the port's records here.
 */

type Client = SupabaseClient<Database>;
const PAGE = 1000;

interface ErrorLike {
  code?: string;
  message?: string;
}

/** By SQLSTATE, never by message; an error without a code never reached Postgres. */
export function describeSimulationError(error: unknown, action: string): SimulationError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  if (error instanceof TypeError || !e.code)
    return { code: 'network', message: `Couldn't ${action}: can't reach the server.` };
  const said = e.message ? `: ${e.message}` : '.';
  switch (e.code) {
    case '42501':
      return { code: 'forbidden', message: `You can't ${action}${said}` };
    case 'PT404':
    case 'PGRST116':
      return { code: 'not_found', message: `Couldn't ${action}: it no longer exists or you no longer have access.` };
    case 'PT413':
    case 'PGRST413':
      return { code: 'too_large', message: `Couldn't ${action}: the payload is larger than 64 KB.` };
    case 'PT429':
      return { code: 'rate_limited', message: `Couldn't ${action}: too many events at once. Wait a moment.` };
    case 'PT409':
      return { code: 'ended', message: `Couldn't ${action}: this simulation has ended.` };
    case '22023':
    case '22P02':
      return { code: 'invalid', message: `Couldn't ${action}${said}` };
    default:
      return { code: 'unknown', message: `Couldn't ${action}${said}` };
  }
}

const asObject = (v: Json | null): JsonObject | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : null;

function asGuards(v: Json): GuardValues {
  const out: GuardValues = {};
  for (const [k, value] of Object.entries(asObject(v) ?? {})) if (typeof value === 'boolean') out[k] = value;
  return out;
}

export const toSimulation = (row: Tables<'simulations'>): SimulationRecord => ({
  id: row.id,
  machineId: row.machine_id,
  projectId: row.project_id,
  machineVersion: row.machine_version,
  // The server copied it from the machine row; the model validates definitions on use.
  definition: row.definition as unknown as MachineDefinition,
  context: asObject(row.initial_context),
  guards: asGuards(row.guards),
  createdBy: row.created_by,
  status: row.status === 'ended' ? 'ended' : 'running',
  forkedFrom: row.forked_from,
  forkedAtSeq: row.forked_at_seq,
  lastSeq: row.last_seq,
  createdAt: row.created_at,
});

export const toLogEntry = (
  row: Pick<Tables<'simulation_events'>, 'seq' | 'kind' | 'type' | 'payload' | 'guards' | 'sender'>,
): SimLogEntry => ({
  seq: row.seq,
  kind: row.kind === 'time' ? 'time' : 'event',
  type: row.type,
  payload: asObject(row.payload) ?? {},
  guards: asGuards(row.guards),
  sender: row.sender,
});

async function attempt<T>(action: string, call: () => Promise<SimResult<T>>): Promise<SimResult<T>> {
  try {
    return await call();
  } catch (error) {
    return { ok: false, error: describeSimulationError(error, action) };
  }
}

export function createSimulationsAdapter(client: Client): SimulationPort {
  const record = (action: string, data: unknown, error: unknown): SimResult<SimulationRecord> =>
    error || !data
      ? { ok: false, error: describeSimulationError(error, action) }
      : { ok: true, value: toSimulation(data as Tables<'simulations'>) };
  return {
    list: (machineId) =>
      attempt('list simulations', async () => {
        const { data, error } = await client
          .from('simulations')
          .select('*')
          .eq('machine_id', machineId)
          .order('created_at', { ascending: false })
          .limit(50);
        if (error) return { ok: false, error: describeSimulationError(error, 'list simulations') };
        return { ok: true, value: data.map(toSimulation) };
      }),

    start: ({ machineId, context, guards }) =>
      attempt('start a simulation', async () => {
        // The simulation pins the stored checkpoint, which trails the log by up to 100 ops.
        await checkpointNow(client, machineId);
        const { data, error } = await client.rpc('start_simulation', {
          p_machine: machineId,
          p_context: context as Json,
          p_guards: guards,
        });
        return record('start a simulation', data, error);
      }),

    send: ({ simulationId, kind, type, payload, guards }) =>
      attempt('send the event', async () => {
        const { data, error } = await client.rpc('send_simulation_event', {
          p_simulation: simulationId,
          p_kind: kind,
          // Null for advancing time; the generated type does not know the argument's default.
          p_type: type as string,
          p_payload: payload,
          p_guards: guards,
        });
        if (error) return { ok: false, error: describeSimulationError(error, 'send the event') };
        const seq = asObject(data)?.seq;
        return typeof seq === 'number'
          ? { ok: true, value: { seq } }
          : {
              ok: false,
              error: { code: 'unknown', message: "Couldn't send the event: the server's answer was not understood." },
            };
      }),

    fork: ({ simulationId, uptoSeq, latest }) =>
      attempt('fork the simulation', async () => {
        if (latest) {
          // On the machine's latest version: bring its checkpoint to the log's head first.
          const sim = await client.from('simulations').select('machine_id').eq('id', simulationId).maybeSingle();
          if (sim.data) await checkpointNow(client, sim.data.machine_id);
        }
        const { data, error } = await client.rpc('fork_simulation', {
          p_simulation: simulationId,
          p_upto_seq: uptoSeq,
          p_latest: latest,
        });
        return record('fork the simulation', data, error);
      }),

    eventsSince: (simulationId, seq) =>
      attempt('read the simulation log', async () => {
        const entries: SimLogEntry[] = [];
        for (let after = seq; ;) {
          const { data, error } = await client
            .from('simulation_events')
            .select('seq, kind, type, payload, guards, sender')
            .eq('simulation_id', simulationId)
            .gt('seq', after)
            .order('seq')
            .limit(PAGE);
          if (error) return { ok: false, error: describeSimulationError(error, 'read the simulation log') };
          entries.push(...data.map(toLogEntry));
          const last = data[data.length - 1];
          if (data.length < PAGE || !last) return { ok: true, value: entries };
          after = last.seq;
        }
      }),

    events$: (simulationId) => simulationLogEvents(client, simulationId),
    simulations$: (machineId) => simulationListEvents(client, machineId),
  };
}

interface LogBroadcast extends Record<string, unknown> {
  entries?: unknown;
}

/**
 * A simulation's appended entries as facts: one private broadcast per event on
 * `sim-log:<simulation id>`, sent by send_simulation_event as it commits and authorised at
 * join by RLS (readers of the project). A dropped channel is a lost stream; after every
 * (re)join the machine reads the log for what it may have missed.
 */
export function simulationLogEvents(client: Client, simulationId: string): Observable<SimLogStreamEvent> {
  return openChannel<never, LogBroadcast, never>(client, {
    topic: `sim-log:${simulationId}`,
    broadcast: ['entries'],
    private: true,
  }).facts$.pipe(
    concatMap((fact): Observable<SimLogStreamEvent> => {
      if (fact.type === 'broadcast') {
        const rows = Array.isArray(fact.payload.entries) ? (fact.payload.entries as unknown[]) : [];
        const entries = rows.filter(isLogRow).map(toLogEntry);
        return entries.length > 0 ? of({ type: 'simlog.received', entries }) : EMPTY;
      }
      if (fact.type === 'status')
        return of(fact.status === 'subscribed' ? { type: 'simlog.subscribed' } : { type: 'simlog.lost' });
      return EMPTY;
    }),
  );
}

type LogRow = Parameters<typeof toLogEntry>[0];

/** A broadcast entry as the send function builds it; anything else is dropped (a missed entry is read from the log). */
function isLogRow(v: unknown): v is LogRow {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.seq === 'number' &&
    (r.kind === 'event' || r.kind === 'time') &&
    (typeof r.type === 'string' || r.type === null)
  );
}

const listStreams = new WeakMap<Client, Map<string, Observable<SimListStreamEvent>>>();

/**
 * A machine's simulations as they start and change: one channel per machine however many
 * follow it (the Simulation and Tests panels both do), since supabase-js hands a second
 * `channel()` of a topic the first one, which cannot be subscribed twice.
 */
export function simulationListEvents(client: Client, machineId: string): Observable<SimListStreamEvent> {
  let byMachine = listStreams.get(client);
  if (!byMachine) {
    byMachine = new Map();
    listStreams.set(client, byMachine);
  }
  let stream = byMachine.get(machineId);
  if (!stream) {
    stream = listEvents(client, machineId).pipe(share());
    byMachine.set(machineId, stream);
  }
  return stream;
}

function listEvents(client: Client, machineId: string): Observable<SimListStreamEvent> {
  return tableChanges(client, `simulations:${machineId}`, [
    { table: 'simulations', filter: `machine_id=eq.${machineId}` },
  ]).pipe(
    concatMap((fact): Observable<SimListStreamEvent> => {
      if (fact.type !== 'change' || fact.change.kind === 'delete') return EMPTY;
      const simulation = toSimulation(fact.change.row);
      return of(
        fact.change.kind === 'insert' ? { type: 'sims.started', simulation } : { type: 'sims.updated', simulation },
      );
    }),
  );
}
