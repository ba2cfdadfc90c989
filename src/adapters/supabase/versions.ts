import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, EMPTY, type Observable, of } from 'rxjs';
import { definitionAtSeq } from '../../lib/timeline/history.ts';
import type { SavedVersion, VersionsFact, VersionsPort, VersionsResult } from '../../lib/ports/versions.ts';
import type { Database, Tables, TablesInsert } from './database.types.ts';
import { tableChanges } from './realtime.ts';
import { createTimelineAdapter } from './timeline.ts';

/**
 * Named versions over Supabase: `machine_versions` rows (RLS decides: readers of the
 * project read, owners and editors name), one channel of postgres changes,
 * `versions:<machine>`, and the definition at a version folded from the op log the way
 * the timeline reads and folds it (src/lib/timeline).
 */

type Client = SupabaseClient<Database>;

export const toSavedVersion = (row: Tables<'machine_versions'>): SavedVersion => ({
  id: row.id,
  machineId: row.machine_id,
  name: row.name,
  seq: row.seq,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

/** The server's words for bad input are meant for people (the migration says each); the rest by SQLSTATE. */
function failed<T>(action: string, error: unknown): VersionsResult<T> {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: string; message?: string };
  if (error instanceof TypeError || !e.code)
    return { ok: false, error: { code: 'network', message: `Couldn't ${action}: can't reach the server.` } };
  if (e.code === '42501')
    return { ok: false, error: { code: e.code, message: `You can't ${action}: only owners and editors may.` } };
  if (e.code === '22023' || e.code === '23505' || e.code === 'PT404') {
    const message = e.message ?? '';
    return { ok: false, error: { code: e.code, message: `${message.charAt(0).toUpperCase()}${message.slice(1)}.` } };
  }
  return { ok: false, error: { code: e.code, message: `Couldn't ${action}${e.message ? `: ${e.message}` : '.'}` } };
}

async function attempt<T>(action: string, call: () => Promise<VersionsResult<T>>): Promise<VersionsResult<T>> {
  try {
    return await call();
  } catch (error) {
    return failed(action, error);
  }
}

export function createVersionsAdapter(client: Client): VersionsPort {
  const timeline = createTimelineAdapter(client);
  return {
    list: (machineId) =>
      attempt('list the versions', async () => {
        const { data, error } = await client
          .from('machine_versions')
          .select('*')
          .eq('machine_id', machineId)
          .order('seq')
          .order('created_at');
        return error ? failed('list the versions', error) : { ok: true, value: data.map(toSavedVersion) };
      }),

    save: (r) =>
      attempt('save the version', async () => {
        const user = (await client.auth.getSession()).data.session?.user.id ?? null;
        // The project is the machine's: the table's trigger fills it in (clients may not send it).
        const row = { machine_id: r.machineId, name: r.name, seq: r.seq, created_by: user };
        const { data, error } = await client
          .from('machine_versions')
          .insert(row as TablesInsert<'machine_versions'>)
          .select('*')
          .single();
        return error ? failed('save the version', error) : { ok: true, value: toSavedVersion(data) };
      }),

    definitionsAt: (machineId, seqs) =>
      attempt('read the version', async () => {
        const read = await timeline.opsSince(machineId, 0);
        if (!read.ok) return { ok: false, error: read.error };
        const definitions = seqs.map((seq) => definitionAtSeq(read.value, seq));
        if (definitions.some((d) => d === null))
          return {
            ok: false,
            error: { code: 'not_found', message: "Couldn't read the version: the log is incomplete." },
          };
        return { ok: true, value: definitions as NonNullable<(typeof definitions)[number]>[] };
      }),

    changes$: (machineId) => versionEvents(client, machineId),
  };
}

/** A machine's versions as they change; a deleted one names nothing (its replica identity is a random key). */
export function versionEvents(client: Client, machineId: string): Observable<VersionsFact> {
  return tableChanges(client, `versions:${machineId}`, [
    { table: 'machine_versions', filter: `machine_id=eq.${machineId}` },
  ]).pipe(
    concatMap((fact): Observable<VersionsFact> => {
      if (fact.type === 'status') {
        if (fact.status === 'subscribed') return of({ type: 'versions.subscribed' });
        return fact.status === 'closed' || fact.status === 'errored' ? of({ type: 'versions.lost' }) : EMPTY;
      }
      if (fact.type !== 'change') return EMPTY;
      if (fact.change.kind === 'delete') return of({ type: 'versions.removed' });
      return of({ type: 'versions.added', version: toSavedVersion(fact.change.row) });
    }),
  );
}
