import type { Observable } from 'rxjs';
import type { JsonObject, MachineDefinition } from '../model/types.ts';
import type { GuardValues, SimLogEntry } from '../simulation/types.ts';

/**
 * The simulation port: a machine's shared simulations and their event logs. Nothing
 * here names Supabase; src/adapters/supabase/simulations.ts implements it. Calls
 * resolve to results, never throw.
 */

export interface SimulationRecord {
  id: string;
  machineId: string;
  projectId: string;
  /** The machine version the simulation runs, and that version's definition. */
  machineVersion: number;
  definition: MachineDefinition;
  context: JsonObject | null;
  guards: GuardValues;
  createdBy: string | null;
  status: 'running' | 'ended';
  forkedFrom: string | null;
  forkedAtSeq: number | null;
  lastSeq: number;
  createdAt: string;
}

/**
 * Why a call failed: `network` (no answer), `forbidden` (not a member), `not_found`,
 * `invalid` (malformed input), `too_large` (payload over 64 KB), `rate_limited` (over
 * 50 events a second), `ended` (the simulation ended), `unknown`.
 */
export type SimulationErrorCode =
  'network' | 'forbidden' | 'not_found' | 'invalid' | 'too_large' | 'rate_limited' | 'ended' | 'unknown';

export interface SimulationError {
  code: SimulationErrorCode;
  message: string;
}

export type SimResult<T> = { ok: true; value: T } | { ok: false; error: SimulationError };

export interface SendRequest {
  simulationId: string;
  kind: 'event' | 'time';
  type: string | null;
  payload: JsonObject;
  guards: GuardValues;
}

/** Facts from one simulation's live log, past tense. */
export type SimLogStreamEvent =
  | { type: 'simlog.received'; entries: SimLogEntry[] }
  /** The stream is (again) live: anything sent while it was not is in the log. */
  | { type: 'simlog.subscribed' }
  | { type: 'simlog.lost' };

/** Facts from a machine's list of simulations, past tense. */
export type SimListStreamEvent =
  { type: 'sims.started'; simulation: SimulationRecord } | { type: 'sims.updated'; simulation: SimulationRecord };

export interface SimulationPort {
  /** The machine's simulations, newest first. */
  list(machineId: string): Promise<SimResult<SimulationRecord[]>>;
  start(input: {
    machineId: string;
    context: JsonObject | null;
    guards: GuardValues;
  }): Promise<SimResult<SimulationRecord>>;
  send(request: SendRequest): Promise<SimResult<{ seq: number }>>;
  /** A new simulation holding the first `uptoSeq` events; `latest` runs it on the machine's current version. */
  fork(input: { simulationId: string; uptoSeq: number; latest: boolean }): Promise<SimResult<SimulationRecord>>;
  /** The log after `seq`, in order. */
  eventsSince(simulationId: string, seq: number): Promise<SimResult<SimLogEntry[]>>;
  events$(simulationId: string): Observable<SimLogStreamEvent>;
  simulations$(machineId: string): Observable<SimListStreamEvent>;
}
