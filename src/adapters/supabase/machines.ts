import type { SupabaseClient } from '@supabase/supabase-js';
import { merge, type Observable } from 'rxjs';
import type { CommitReceipt, CommittedOp } from '../../lib/collab/types.ts';
import { sketchOf, type ChartSketch } from '../../lib/layout/thumbnail.ts';
import { applyOps } from '../../lib/model/apply.ts';
import type { Op } from '../../lib/model/op-types.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type {
  CommitResult,
  DocumentError,
  DocumentErrorCode,
  DocumentPort,
  MachineListEvent,
  MachineRecord,
  MachineSummary,
  OpStreamEvent,
  Result,
} from '../../lib/ports/document.ts';
import type { Database, Json, Tables } from './database.types.ts';
import { createPendingLinks, type PendingLinks } from './machine-pending.ts';
import { factsAs, openChannel } from './realtime.ts';

/**
 * Machines and their op log over Supabase: table calls for the machine list, the
 * `commit_machine_ops` function to append edits (ops only: the server orders them and
 * never refuses for being behind), the `checkpoint-machine` edge function to move the
 * trusted checkpoint, and a private channel `machine-ops:<id>` carrying each appended
 * batch as one broadcast (authorised at join by RLS on realtime.messages), with each
 * batch also sent ahead to the machine's peers (machine-pending.ts). Rows become
 * the port's records here; Supabase's shapes stop at this file.
 */

type Client = SupabaseClient<Database>;

/** Rows per request when reading the log: keeps every response small, whatever the gap. */
const PAGE = 1000;

/** The database's machine_checkpoint_interval(): ops between checkpoints. */
export const CHECKPOINT_INTERVAL = 100;

const SUMMARY = 'id, project_id, name, version, created_by, created_at, updated_at';

interface ErrorLike {
  code?: string;
  message?: string;
  details?: string | null;
}

const fail = (code: DocumentErrorCode, message: string): { ok: false; error: DocumentError } => ({
  ok: false,
  error: { code, message },
});

/** By SQLSTATE / PostgREST code, never by message; an error without a code never reached Postgres. */
export function describeMachineError(error: unknown, action: string): DocumentError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  if (error instanceof TypeError || !e.code)
    return { code: 'network', message: "Can't reach the server. Your edits are kept and will be sent when it's back." };
  switch (e.code) {
    case '54000':
      return { code: 'too_big', message: `Couldn't ${action}: ${e.message ?? "it is over the server's limits"}.` };
    case '42501':
      return { code: 'forbidden', message: `You don't have permission to ${action}.` };
    case 'P0002':
    case 'PGRST116':
      return {
        code: 'not_found',
        message: `Couldn't ${action}: the machine no longer exists or you no longer have access.`,
      };
    case 'PGRST413':
      return { code: 'too_big', message: `Couldn't ${action}: it is too big to send in one request.` };
    case '22023':
    case '23514':
    case '22P02':
      return { code: 'invalid', message: `Couldn't ${action}: ${e.message ?? 'the server refused the input'}.` };
    default:
      return { code: 'unknown', message: `Couldn't ${action}${e.message ? `: ${e.message}` : '.'}` };
  }
}

export const toSummary = (
  row: Omit<Tables<'machines'>, 'definition' | 'realtime_key' | 'draft_of'>,
): MachineSummary => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  version: row.version,
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

// The server stores what the model wrote; definitions are validated by the model on use.
const toRecord = (row: Tables<'machines'>): MachineRecord => ({
  ...toSummary(row),
  definition: row.definition as unknown as MachineDefinition,
});

export const toCommittedOp = (
  row: Pick<Tables<'machine_ops'>, 'seq' | 'batch_id' | 'client_id' | 'op'>,
): CommittedOp<Op> => ({
  seq: row.seq,
  batchId: row.batch_id,
  clientId: row.client_id,
  op: row.op as unknown as Op,
});

/** The receipt commit_machine_ops returns as jsonb. */
function toReceipt(data: Json): CommitReceipt | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const { first_seq, last_seq, version, duplicate, checkpoint_due } = data;
  if (
    typeof first_seq !== 'number' ||
    typeof last_seq !== 'number' ||
    typeof version !== 'number' ||
    typeof duplicate !== 'boolean'
  )
    return null;
  return { firstSeq: first_seq, lastSeq: last_seq, version, duplicate, checkpointDue: checkpoint_due === true };
}

/** The log after `version`, page by page. */
async function readLog(client: Client, machineId: string, version: number): Promise<Result<CommittedOp<Op>[]>> {
  const ops: CommittedOp<Op>[] = [];
  for (let after = version; ;) {
    // read_machine_ops checks access once per page, not once per row as the table's RLS does.
    const { data, error } = await client.rpc('read_machine_ops', {
      p_machine: machineId,
      p_after: after,
      p_limit: PAGE,
    });
    if (error) return { ok: false, error: describeMachineError(error, 'catch up with the latest edits') };
    ops.push(...data.map(toCommittedOp));
    const last = data[data.length - 1];
    if (data.length < PAGE || !last) return { ok: true, value: ops };
    after = last.seq;
  }
}

/** The sketch of a machine as it is now (its checkpoint, or that alone when its log can't be read or replayed). */
async function currentSketch(
  client: Client,
  row: Pick<Tables<'machines'>, 'id' | 'version' | 'definition'>,
): Promise<ChartSketch | null> {
  const checkpoint = row.definition as unknown as MachineDefinition;
  const tail = await readLog(client, row.id, row.version).catch(() => null);
  if (!tail?.ok || tail.value.length === 0) return sketchOf(checkpoint);
  try {
    return sketchOf(
      applyOps(
        checkpoint,
        tail.value.map((c) => c.op),
      ),
    );
  } catch {
    return sketchOf(checkpoint);
  }
}

/** Who last changed each machine of a project, by machine id; null when it can't be read (the cards then say less). */
async function lastChanges(
  client: Client,
  projectId: string,
): Promise<Map<string, { by: string | null; at: string }> | null> {
  const { data, error } = await client.rpc('machine_activity', { p_project: projectId });
  if (error || !data) return null;
  return new Map(data.map((row) => [row.machine_id, { by: row.author, at: row.changed_at }]));
}

/** Appends a batch: ops only (the forgery guards' parameters are left at their defaults). */
async function append(
  client: Client,
  request: { machineId: string; clientId: string; batchId: string; ops: Op[] },
): Promise<CommitResult> {
  const args = {
    p_machine: request.machineId,
    p_client_id: request.clientId,
    p_batch_id: request.batchId,
    p_ops: request.ops as unknown as Json,
  };
  const { data, error } = await client.rpc('commit_machine_ops', args);
  if (error) return { ok: false, error: describeMachineError(error, 'save your edit') };
  const receipt = toReceipt(data);
  if (!receipt)
    return {
      ok: false,
      error: { code: 'unknown', message: "Couldn't save your edit: the server's answer was not understood." },
    };
  return { ok: true, receipt };
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
  const pending = createPendingLinks(client);
  return {
    listMachines: (projectId) =>
      attempt('list machines', async () => {
        const { data, error } = await client
          .from('machines')
          .select(`${SUMMARY}, definition`)
          .eq('project_id', projectId)
          // Proposals' drafts are listed on their machine's Proposals panel, not here.
          .is('draft_of', null)
          .order('created_at');
        if (error) return { ok: false, error: describeMachineError(error, 'list machines') };
        // Each machine's picture is drawn from its checkpoint and the log after it (a new
        // machine's content is still in its log): one read per machine, side by side; who
        // last changed each, one call for the project beside them.
        const [value, changes] = await Promise.all([
          Promise.all(data.map(async (row) => ({ ...toSummary(row), sketch: await currentSketch(client, row) }))),
          lastChanges(client, projectId),
        ]);
        return {
          ok: true,
          value: changes ? value.map((m) => ({ ...m, lastChange: changes.get(m.id) ?? null })) : value,
        };
      }),

    // The latest checkpoint, then the ops after it.
    loadMachine: (machineId) =>
      attempt('open this machine', async () => {
        const { data, error } = await client.from('machines').select('*').eq('id', machineId).maybeSingle();
        if (error) return { ok: false, error: describeMachineError(error, 'open this machine') };
        if (!data)
          return fail('not_found', "Couldn't open this machine: it no longer exists or you no longer have access.");
        const tail = await readLog(client, machineId, data.version);
        if (!tail.ok) return tail;
        // The tail is replayed here; a long one (a checkpoint that failed or is still
        // running) also asks trusted code to move the checkpoint, without waiting for it.
        if (tail.value.length >= CHECKPOINT_INTERVAL) void checkpointNow(client, machineId);
        return { ok: true, value: { ...toRecord(data), tail: tail.value } };
      }),

    // The stored definition starts as the bare root at version 0; the database turns the
    // content into the log's first op (`machine.replace`), so only the checkpoint writes it.
    createMachine: ({ projectId, name, definition }) =>
      attempt('create a machine', async () => {
        const { data, error } = await client
          .from('machines')
          .insert({ project_id: projectId, name, definition: definition as unknown as Json })
          .select(SUMMARY)
          .single();
        if (error) return { ok: false, error: describeMachineError(error, 'create a machine') };
        // The stored definition has the content before anyone opens the machine.
        await checkpointNow(client, data.id);
        return { ok: true, value: { ...toSummary(data), definition } };
      }),

    renameMachine: (machineId, name) =>
      attempt('rename this machine', async () => {
        const { data, error } = await client
          .from('machines')
          .update({ name })
          .eq('id', machineId)
          .select(SUMMARY)
          .maybeSingle();
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
      // The peers see it now; the log's copy (below) confirms it for everyone.
      pending.share(request);
      const result = await attempt('save your edit', async (): Promise<Result<CommitReceipt>> => {
        const appended = await append(client, request);
        return appended.ok ? { ok: true, value: appended.receipt } : appended;
      });
      if (!result.ok) return result;
      // This append took the checkpoint lease (the log is an interval past the checkpoint):
      // move the checkpoint after answering, never in the way of the edit. Its failure
      // changes nothing for the edit (it is in the log); the lease expires and a later
      // append takes it.
      if (result.value.checkpointDue) void checkpointNow(client, request.machineId);
      return { ok: true, receipt: result.value };
    },

    requestCheckpoint: (machineId) => void checkpointNow(client, machineId),

    opsSince: (machineId, version) =>
      attempt('catch up with the latest edits', () => readLog(client, machineId, version)),

    opEvents$: (machineId) => machineOpEvents(client, machineId, pending),
    machineListEvents$: (projectId) => machineListEvents(client, projectId),
  };
}

/**
 * Runs the checkpoint function: the stored definition then has every op logged before the
 * call (what a simulation pins). Failures are left to the next lease holder or loader.
 */
export async function checkpointNow(client: Client, machineId: string): Promise<void> {
  try {
    await client.functions.invoke('checkpoint-machine', { body: { machineId } });
  } catch {
    // The network or the function failed: the edit is in the log all the same.
  }
}

interface OpsBroadcast extends Record<string, unknown> {
  ops?: { seq: number; batch_id: string; client_id: string; op: Json }[];
  last_seq?: number;
}

/**
 * The log's appends for one machine as facts: one private broadcast per batch on
 * `machine-ops:<id>` (sent by commit_machine_ops, authorised at join by RLS); a batch too
 * big for one message comes as its last seq, which is a gap to read from the log. A
 * dropped channel is a lost connection.
 */
export function machineOpEvents(
  client: Client,
  machineId: string,
  pending: PendingLinks = createPendingLinks(client),
): Observable<OpStreamEvent> {
  const logged = openChannel<never, OpsBroadcast, never>(client, {
    topic: `machine-ops:${machineId}`,
    broadcast: ['ops'],
    private: true,
  }).facts$.pipe(
    factsAs((fact): OpStreamEvent | null => {
      if (fact.type === 'broadcast') {
        const ops = Array.isArray(fact.payload.ops) ? fact.payload.ops : [];
        if (ops.length > 0) return { type: 'ops.received', ops: ops.map(toCommittedOp) };
        // Announced, not carried: anything up to last_seq is in the log.
        return typeof fact.payload.last_seq === 'number' ? { type: 'ops.subscribed' } : null;
      }
      if (fact.type === 'status')
        return fact.status === 'subscribed' ? { type: 'ops.subscribed' } : { type: 'connection.lost' };
      return null;
    }),
  );
  // Others' batches ride beside the log on a channel of their own; the log's channel alone says whether the stream is live.
  return merge(logged, pending.events$(machineId));
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
    factsAs((fact): MachineListEvent | null => {
      if (fact.type === 'change') {
        const { change } = fact;
        // A proposal's draft is no machine of the list.
        if (change.kind === 'delete' || change.row.draft_of) return null;
        return { type: 'machines.upserted', machine: toSummary(change.row) };
      }
      if (fact.type === 'broadcast') {
        return typeof fact.payload.id === 'string' ? { type: 'machines.deleted', machineId: fact.payload.id } : null;
      }
      if (fact.type === 'status')
        return fact.status === 'subscribed' ? { type: 'machines.subscribed' } : { type: 'machines.lost' };
      return null;
    }),
  );
}
