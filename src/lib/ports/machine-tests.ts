import type { Observable } from 'rxjs';
import type { JsonObject } from '../model/types.ts';
import type { TestScript } from '../testing/types.ts';

/**
 * The saved-tests port: a machine's saved tests and their runs. Nothing here names
 * Supabase; src/adapters/supabase/machine-tests.ts implements it. Calls resolve to
 * results, never throw.
 */

export interface SavedTest {
  id: string;
  machineId: string;
  name: string;
  script: TestScript;
  context: JsonObject | null;
  /** The machine version the test was saved at. */
  machineVersion: number;
  source: 'path' | 'simulation';
  createdBy: string | null;
  createdAt: string;
  /** Set when the stored row is malformed: what is wrong, in words (the script is then empty). */
  problem?: string;
}

export interface TestRun {
  id: string;
  testId: string;
  machineVersion: number;
  status: 'pass' | 'fail';
  failedStep: number | null;
  message: string | null;
  runBy: string | null;
  createdAt: string;
}

export type TestsResult<T> = { ok: true; value: T } | { ok: false; message: string };

export interface SaveTestRequest {
  machineId: string;
  name: string;
  script: TestScript;
  context: JsonObject | null;
  machineVersion: number;
  source: 'path' | 'simulation';
  simulationId: string | null;
}

export interface RecordRunRequest {
  testId: string;
  machineId: string;
  machineVersion: number;
  status: 'pass' | 'fail';
  failedStep: number | null;
  message: string | null;
}

/** Facts from the machine's tests as they change, past tense. */
export type TestsStreamEvent =
  | { type: 'tests.saved'; test: SavedTest }
  | { type: 'tests.deleted'; testId: string }
  | { type: 'tests.ran'; run: TestRun }
  | { type: 'tests.subscribed' };

export interface MachineTestsPort {
  /** The machine's tests, oldest first, and each test's newest run. */
  list(machineId: string): Promise<TestsResult<{ tests: SavedTest[]; runs: TestRun[] }>>;
  save(request: SaveTestRequest): Promise<TestsResult<SavedTest>>;
  recordRun(request: RecordRunRequest): Promise<TestsResult<TestRun>>;
  changes$(machineId: string): Observable<TestsStreamEvent>;
}
