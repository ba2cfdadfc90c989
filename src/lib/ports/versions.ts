import type { Observable } from 'rxjs';
import type { MachineDefinition } from '../model/types.ts';

/**
 * The versions port: a machine's named versions (`machine_versions` rows: a name for a
 * position in its op log, read through row level security), naming one, the definitions
 * at versions (the log folded as the timeline folds it), and the rows as they change.
 * src/adapters/supabase/versions.ts implements it. Calls resolve to results, never throw.
 */

export interface SavedVersion {
  id: string;
  machineId: string;
  name: string;
  /** The op log position it names: the definition after op `seq`. */
  seq: number;
  createdBy: string | null;
  createdAt: string;
}

export interface VersionsError {
  code: string;
  message: string;
}

export type VersionsResult<T> = { ok: true; value: T } | { ok: false; error: VersionsError };

/** Facts from the versions' channel, past tense. */
export type VersionsFact =
  | { type: 'versions.added'; version: SavedVersion }
  /** A version was deleted (the event names none of it): read the list again. */
  | { type: 'versions.removed' }
  /** The channel is (again) live: anything missed meanwhile is in the table. */
  | { type: 'versions.subscribed' }
  | { type: 'versions.lost' };

export interface VersionsPort {
  list(machineId: string): Promise<VersionsResult<SavedVersion[]>>;
  save(request: { machineId: string; name: string; seq: number }): Promise<VersionsResult<SavedVersion>>;
  /** The definitions after ops `seqs` (one read of the log). */
  definitionsAt(machineId: string, seqs: readonly number[]): Promise<VersionsResult<MachineDefinition[]>>;
  changes$(machineId: string): Observable<VersionsFact>;
}
