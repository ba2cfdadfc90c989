import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, EMPTY, type Observable, of } from 'rxjs';
import type { JsonObject } from '../../lib/model/types.ts';
import type {
  MachineTestsPort,
  SavedTest,
  TestRun,
  TestsResult,
  TestsStreamEvent,
} from '../../lib/ports/machine-tests.ts';
import { readScript } from '../../lib/testing/check.ts';
import type { Database, Json, Tables } from './database.types.ts';
import { tableChanges } from './realtime.ts';

/**
 * Saved tests over Supabase: rows of `machine_tests` and `machine_test_runs` (RLS decides
 * who may save and run: members of any role), and one channel of postgres changes,
 * `machine-tests:<machine>`, for both tables. Rows become the port's records here.
 */

type Client = SupabaseClient<Database>;

const asObject = (v: Json | null): JsonObject | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : null;

// The table's check makes both arrays; the steps' shapes are whatever a client wrote,
// so a malformed row becomes a test with a problem in words and an empty script.
export const toSavedTest = (row: Tables<'machine_tests'>): SavedTest => {
  const read = readScript(row.script);
  const test = toTest(row, read.ok ? read.script : { start: [], steps: [] });
  return read.ok ? test : { ...test, problem: `This test is malformed: ${read.message}.` };
};

const toTest = (row: Tables<'machine_tests'>, script: SavedTest['script']): SavedTest => ({
  id: row.id,
  machineId: row.machine_id,
  name: row.name,
  script,
  context: asObject(row.initial_context),
  machineVersion: row.machine_version,
  source: row.source === 'simulation' ? 'simulation' : 'path',
  createdBy: row.created_by,
  createdAt: row.created_at,
});

export const toTestRun = (row: Tables<'machine_test_runs'>): TestRun => ({
  id: row.id,
  testId: row.test_id,
  machineVersion: row.machine_version,
  status: row.status === 'pass' ? 'pass' : 'fail',
  failedStep: row.failed_step,
  message: row.message,
  runBy: row.run_by,
  createdAt: row.created_at,
});

function failed<T>(action: string, error: unknown): TestsResult<T> {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: string; message?: string };
  if (!e.code) return { ok: false, message: `Couldn't ${action}: can't reach the server.` };
  if (e.code === '42501') return { ok: false, message: `You can't ${action}: only members of the project may.` };
  return { ok: false, message: `Couldn't ${action}${e.message ? `: ${e.message}` : '.'}` };
}

async function attempt<T>(action: string, call: () => Promise<TestsResult<T>>): Promise<TestsResult<T>> {
  try {
    return await call();
  } catch (error) {
    return failed(action, error);
  }
}

export function createMachineTestsAdapter(client: Client): MachineTestsPort {
  return {
    list: (machineId) =>
      attempt('list the tests', async () => {
        const tests = await client.from('machine_tests').select('*').eq('machine_id', machineId).order('created_at');
        if (tests.error) return failed('list the tests', tests.error);
        const runs = await client
          .from('machine_test_runs')
          .select('*')
          .eq('machine_id', machineId)
          .order('created_at', { ascending: false })
          .limit(1000);
        if (runs.error) return failed('list the tests', runs.error);
        return { ok: true, value: { tests: tests.data.map(toSavedTest), runs: runs.data.map(toTestRun) } };
      }),

    save: (r) =>
      attempt('save the test', async () => {
        const machine = await client.from('machines').select('project_id').eq('id', r.machineId).single();
        if (machine.error) return failed('save the test', machine.error);
        const user = (await client.auth.getSession()).data.session?.user.id ?? null;
        const { data, error } = await client
          .from('machine_tests')
          .insert({
            project_id: machine.data.project_id,
            machine_id: r.machineId,
            name: r.name,
            script: r.script as unknown as Json,
            initial_context: r.context,
            machine_version: r.machineVersion,
            source: r.source,
            simulation_id: r.simulationId,
            created_by: user,
          })
          .select('*')
          .single();
        return error ? failed('save the test', error) : { ok: true, value: toSavedTest(data) };
      }),

    recordRun: (r) =>
      attempt('store the result', async () => {
        const test = await client.from('machine_tests').select('project_id').eq('id', r.testId).single();
        if (test.error) return failed('store the result', test.error);
        const user = (await client.auth.getSession()).data.session?.user.id ?? null;
        const { data, error } = await client
          .from('machine_test_runs')
          .insert({
            test_id: r.testId,
            project_id: test.data.project_id,
            machine_id: r.machineId,
            machine_version: r.machineVersion,
            status: r.status,
            failed_step: r.failedStep,
            message: r.message,
            run_by: user,
          })
          .select('*')
          .single();
        return error ? failed('store the result', error) : { ok: true, value: toTestRun(data) };
      }),

    changes$: (machineId) => machineTestEvents(client, machineId),
  };
}

/** A machine's tests and runs as they change. */
export function machineTestEvents(client: Client, machineId: string): Observable<TestsStreamEvent> {
  return tableChanges(client, `machine-tests:${machineId}`, [
    { table: 'machine_tests', filter: `machine_id=eq.${machineId}` },
    { table: 'machine_test_runs', filter: `machine_id=eq.${machineId}` },
  ]).pipe(
    concatMap((fact): Observable<TestsStreamEvent> => {
      if (fact.type === 'status') return fact.status === 'subscribed' ? of({ type: 'tests.subscribed' }) : EMPTY;
      if (fact.type !== 'change') return EMPTY;
      const c = fact.change;
      if (c.table === 'machine_tests') {
        if (c.kind === 'delete') return of({ type: 'tests.deleted', testId: (c.old as { id?: string }).id ?? '' });
        return of({ type: 'tests.saved', test: toSavedTest(c.row as Tables<'machine_tests'>) });
      }
      if (c.kind === 'insert') return of({ type: 'tests.ran', run: toTestRun(c.row as Tables<'machine_test_runs'>) });
      return EMPTY;
    }),
  );
}
