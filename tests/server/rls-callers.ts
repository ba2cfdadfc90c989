import type pg from 'pg';
import { machineIn, projectFor, team, type Team } from '../adapters/machines-fixtures.ts';
import { adminDb, anonClient, serviceClient, type AnyClient } from '../setup/clients.ts';

/**
 * The callers the row-level-security tests compare, one client each: anon, the team's
 * outsider, viewer, editor and owner, and the service role; and the answer of an RPC or
 * a table call as those tests read it.
 */

export type Caller = 'anon' | 'outsider' | 'viewer' | 'editor' | 'owner' | 'service';

export interface Result {
  data: unknown;
  error: { code?: string; message: string; details?: string | null; hint?: string | null } | null;
  status: number;
}

/** A fresh anon and service-role client, and the team's signed-in ones, by caller. */
export function callerClients(t: Team): Record<Caller, AnyClient> {
  return {
    anon: anonClient(),
    outsider: t.outsider.client,
    viewer: t.viewer.client,
    editor: t.editor.client,
    owner: t.owner.client,
    service: serviceClient(),
  };
}

/** The signed-in callers' user ids. */
export const callerIds = (t: Team) => ({
  viewer: t.viewer.id,
  editor: t.editor.id,
  owner: t.owner.id,
  outsider: t.outsider.id,
});

/** A fresh team, an admin connection to the database, and a project of the team's with one machine. */
export async function teamMachine(): Promise<{ t: Team; db: pg.Client; project: string; machine: string }> {
  const t = await team();
  const db = await adminDb();
  const project = await projectFor(t);
  return { t, db, project, machine: await machineIn(t, project) };
}

/** `fn(args)` through supabase-js, its answer as the tests read it. */
export const call = (client: AnyClient, fn: string, args: Record<string, unknown>) =>
  client.rpc(fn, args) as unknown as Promise<Result>;

/** A new inspection source in `project`, created by `owner`: its id and its key (returned once). */
export async function createInspectionSource(
  owner: AnyClient,
  project: string,
  name: string,
  maxEvents: number,
): Promise<{ id: string; key: string }> {
  const r = await call(owner, 'create_inspection_source', {
    p_project: project,
    p_name: name,
    p_max_events: maxEvents,
  });
  if (r.error) throw new Error(r.error.message);
  const data = r.data as { source: { id: string }; key: string };
  return { id: data.source.id, key: data.key };
}
