import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, EMPTY, type Observable, of } from 'rxjs';
import type { CommittedOp } from '../../lib/collab/types.ts';
import type { Op } from '../../lib/model/op-types.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type { CommitResult, DocumentError, DocumentErrorCode, DocumentPort, MachineListEvent, MachineRecord, MachineSummary, OpStreamEvent, Result } from '../../lib/ports/document.ts';
import type { Database, Json, Tables } from './database.types.ts';
import { openChannel, tableChanges } from './realtime.ts';

/**
 * Machines and their op log over Supabase: table calls for the machine list, the
 * `commit_machine_ops` function for edits, and a channel `machine-ops:<id>` carrying the
 * log's inserts as postgres changes (filtered by machine on the server, read through
 * RLS). Rows become the port's records here; Supabase's shapes stop at this file.
 */

type Client = SupabaseClient<Database>;

/** Rows per request when reading the log: keeps every response small, whatever the gap. */
const PAGE = 1000;

const SUMMARY = 'id, project_id, name, version, created_by, created_at, updated_at';

interface ErrorLike {
  code?: string;
  message?: string;
  details?: string | null;
}

const fail = (code: DocumentErrorCode, message: string): { ok: false; error: DocumentError } => ({ ok: false, error: { code, message } });

/** By SQLSTATE / PostgREST code, never by message; an error without a code never reached Postgres. */
export function describeMachineError(error: unknown, action: string): DocumentError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  if (error instanceof TypeError || !e.code) return { code: 'network', message: "Can't reach the server. Your edits are kept and will be sent when it's back." };
  switch (e.code) {
    case 'CR409':
      return { code: 'conflict', message: 'Someone else edited this machine first.' };
    case '42501':
      return { code: 'forbidden', message: `You don't have permission to ${action}.` };
    case 'P0002':
    case 'PGRST116':
      return { code: 'not_found', message: `Couldn't ${action}: the machine no longer exists or you no longer have access.` };
    case 'PGRST413':
      return { code: 'invalid', message: `Couldn't ${action}: the machine is too large to send in one request.` };
    case '22023':
    case '23514':
    case '22P02':
      return { code: 'invalid', message: `Couldn't ${action}: ${e.message ?? 'the server refused the input'}.` };
    default:
      return { code: 'unknown', message: `Couldn't ${action}${e.message ? `: ${e.message}` : '.'}` };
  }
}

export const toSummary = (row: Omit<Tables<'machines'>, 'definition' | 'realtime_key'>): MachineSummary => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  version: row.version,
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

// The server stores what the model wrote; definitions are validated by the model on use.
const toRecord = (row: Tables<'machines'>): MachineRecord => ({ ...toSummary(row), definition: row.definition as unknown as MachineDefinition });

export const toCommittedOp = (row: Pick<Tables<'machine_ops'>, 'seq' | 'batch_id' | 'client_id' | 'op'>): CommittedOp<Op> => ({
  seq: row.seq,
  batchId: row.batch_id,
  clientId: row.client_id,
  op: row.op as unknown as Op,
});

/** The receipt commit_machine_ops returns as jsonb. */
function toReceipt(data: Json): { firstSeq: number; lastSeq: number; version: number; duplicate: boolean } | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const { first_seq, last_seq, version, duplicate } = data;
  if (typeof first_seq !== 'number' || typeof last_seq !== 'number' || typeof version !== 'number' || typeof duplicate !== 'boolean') return null;
  return { firstSeq: first_seq, lastSeq: last_seq, version, duplicate };
}

function currentVersionOf(details: string | null | undefined): number {
  try {
    const parsed = JSON.parse(details ?? '') as { current_version?: unknown };
    return typeof parsed.current_version === 'number' ? parsed.current_version : -1;
  } catch {
    return -1;
  }
}

/** Runs a call, turning a thrown network failure into a result like any other. */
async function attempt<T>(action: string, call: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await call();
  } catch (error) {
    return { ok: false, error: describeMachineError(error, action) };
  }
}

export function createMachinesAdapter(client: Client): DocumentPort {
  return {
    listMachines: (projectId) =>
      attempt('list machines', async () => {
        const { data, error } = await client.from('machines').select(SUMMARY).eq('project_id', projectId).order('created_at');
        if (error) return { ok: false, error: describeMachineError(error, 'list machines') };
        return { ok: true, value: data.map(toSummary) };
      }),

    loadMachine: (machineId) =>
      attempt('open this machine', async () => {
        const { data, error } = await client.from('machines').select('*').eq('id', machineId).maybeSingle();
        if (error) return { ok: false, error: describeMachineError(error, 'open this machine') };
        if (!data) return fail('not_found', "Couldn't open this machine: it no longer exists or you no longer have access.");
        return { ok: true, value: toRecord(data) };
      }),

    createMachine: ({ projectId, name, definition }) =>
      attempt('create a machine', async () => {
        const { data, error } = await client
          .from('machines')
          .insert({ project_id: projectId, name, definition: definition as unknown as Json })
          .select('*')
          .single();
        if (error) return { ok: false, error: describeMachineError(error, 'create a machine') };
        return { ok: true, value: toRecord(data) };
      }),

    renameMachine: (machineId, name) =>
      attempt('rename this machine', async () => {
        const { data, error } = await client.from('machines').update({ name }).eq('id', machineId).select(SUMMARY).maybeSingle();
        if (error) return { ok: false, error: describeMachineError(error, 'rename this machine') };
        // RLS hides the row from a viewer's update: nothing changed.
        if (!data) return fail('forbidden', "You don't have permission to rename this machine.");
        return { ok: true, value: toSummary(data) };
      }),

    deleteMachine: (machineId) =>
      attempt('delete this machine', async () => {
        const { data, error } = await client.from('machines').delete().eq('id', machineId).select('id');
        if (error) return { ok: false, error: describeMachineError(error, 'delete this machine') };
        if (data.length === 0) return fail('forbidden', "You don't have permission to delete this machine.");
        return { ok: true, value: undefined };
      }),

    async commitOps(request): Promise<CommitResult> {
      try {
        const { data, error } = await client.rpc('commit_machine_ops', {
          p_machine: request.machineId,
          p_base_version: request.base,
          p_client_id: request.clientId,
          p_batch_id: request.batchId,
          p_ops: request.ops as unknown as Json,
          p_definition: request.definition as unknown as Json,
        });
        if (error) {
          const described = describeMachineError(error, 'save your edit');
          if (described.code === 'conflict') return { ok: false, error: { ...described, code: 'conflict' }, currentVersion: currentVersionOf(error.details) };
          return { ok: false, error: { ...described, code: described.code } };
        }
        const receipt = toReceipt(data);
        if (!receipt) return { ok: false, error: { code: 'unknown', message: "Couldn't save your edit: the server's answer was not understood." } };
        return { ok: true, receipt };
      } catch (error) {
        const described = describeMachineError(error, 'save your edit');
        return { ok: false, error: { ...described, code: described.code === 'conflict' ? 'unknown' : described.code } };
      }
    },

    opsSince: (machineId, version) =>
      attempt('catch up with the latest edits', async () => {
        const ops: CommittedOp<Op>[] = [];
        for (let after = version; ; ) {
          const { data, error } = await client
            .from('machine_ops')
            .select('seq, batch_id, client_id, op')
            .eq('machine_id', machineId)
            .gt('seq', after)
            .order('seq')
            .limit(PAGE);
          if (error) return { ok: false, error: describeMachineError(error, 'catch up with the latest edits') };
          ops.push(...data.map(toCommittedOp));
          const last = data[data.length - 1];
          if (data.length < PAGE || !last) return { ok: true, value: ops };
          after = last.seq;
        }
      }),

    opEvents$: (machineId) => machineOpEvents(client, machineId),
    machineListEvents$: (projectId) => machineListEvents(client, projectId),
  };
}

/** The log's inserts for one machine as facts; a dropped channel is a lost connection. */
export function machineOpEvents(client: Client, machineId: string): Observable<OpStreamEvent> {
  return tableChanges(client, `machine-ops:${machineId}`, [{ table: 'machine_ops', filter: `machine_id=eq.${machineId}` }]).pipe(
    concatMap((fact): Observable<OpStreamEvent> => {
      if (fact.type === 'change') {
        return fact.change.kind === 'insert' ? of({ type: 'ops.received', ops: [toCommittedOp(fact.change.row)] }) : EMPTY;
      }
      if (fact.type === 'status') return of(fact.status === 'subscribed' ? { type: 'ops.subscribed' } : { type: 'connection.lost' });
      return EMPTY;
    }),
  );
}

/**
 * A project's machine rows as list facts (only the summary columns are read from a row),
 * on the private channel `machines:<project>`: inserts and updates as postgres changes
 * (RLS-checked), deletes as the database's `machine_deleted` broadcast (a DELETE event
 * carries only an opaque replica key, so it names no machine).
 */
export function machineListEvents(client: Client, projectId: string): Observable<MachineListEvent> {
  return openChannel<'machines', { id?: unknown }, never>(client, {
    topic: `machines:${projectId}`,
    private: true,
    changes: [{ table: 'machines', filter: `project_id=eq.${projectId}` }],
    broadcast: ['machine_deleted'],
  }).facts$.pipe(
    concatMap((fact): Observable<MachineListEvent> => {
      if (fact.type === 'change') {
        const { change } = fact;
        return change.kind === 'delete' ? EMPTY : of({ type: 'machines.upserted', machine: toSummary(change.row) });
      }
      if (fact.type === 'broadcast') {
        return typeof fact.payload.id === 'string' ? of({ type: 'machines.deleted', machineId: fact.payload.id }) : EMPTY;
      }
      if (fact.type === 'status') return of(fact.status === 'subscribed' ? { type: 'machines.subscribed' } : { type: 'machines.lost' });
      return EMPTY;
    }),
  );
}
