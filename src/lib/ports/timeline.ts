import type { Observable } from 'rxjs';
import type { AuthoredOp, SimulationMark, SimulationStart } from '../timeline/types.ts';

/**
 * The timeline port: what happened to one machine, for its timeline. The op log with
 * authors (`machine_ops`, read through its row level security), the machine's
 * simulations and all their events, and the live facts of the latter two. Edits arrive
 * live through the document (the open machine says when the log's head moved); this
 * port reads the rows with their authors. src/adapters/supabase/timeline.ts implements
 * it. Calls resolve to results, never throw.
 */

export type TimelineErrorCode = 'network' | 'not_found' | 'unknown';

export interface TimelineError {
  code: TimelineErrorCode;
  message: string;
}

export type TimelineResult<T> = { ok: true; value: T } | { ok: false; error: TimelineError };

/** Facts from a machine's simulations, past tense. */
export type TimelineFact =
  | { type: 'timeline.simulationStarted'; simulation: SimulationStart }
  | { type: 'timeline.eventsSent'; marks: SimulationMark[] }
  /** The stream is (again) live: anything missed meanwhile is in the tables. */
  | { type: 'timeline.subscribed' }
  | { type: 'timeline.lost' };

export interface TimelinePort {
  /** The op log after `after`, every page of it, in seq order. */
  opsSince(machineId: string, after: number): Promise<TimelineResult<AuthoredOp[]>>;
  /** The machine's simulations and every event sent in them. */
  simulations(machineId: string): Promise<TimelineResult<{ starts: SimulationStart[]; marks: SimulationMark[] }>>;
  facts$(machineId: string): Observable<TimelineFact>;
}
