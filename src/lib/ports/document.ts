import type { Observable } from 'rxjs';
import type { CommitReceipt, CommittedOp, QueueSnapshot, RemoteBatch } from '../collab/types.ts';
import type { ChartSketch } from '../layout/thumbnail.ts';
import type { MachineDefinition } from '../model/types.ts';
import type { Op } from '../model/op-types.ts';

/**
 * The document port: machines (statecharts) of a project and their op log, as the
 * document statechart and the machine list need them. Nothing here names Supabase;
 * src/adapters/supabase/machines.ts implements it. Calls resolve to results, never throw.
 */

export interface MachineSummary {
  id: string;
  projectId: string;
  name: string;
  version: number;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  /** The stored chart in brief, for a picture of it; absent when the row came without it. */
  sketch?: ChartSketch | null;
  /**
   * Who last changed it and when (its log's newest op; `by` null when that account is
   * gone); null for a machine with no ops, absent when the row came without it.
   */
  lastChange?: { by: string | null; at: string } | null;
}

export interface MachineRecord extends MachineSummary {
  /** The latest checkpoint: the log's ops 1..`version` replayed by trusted code. */
  definition: MachineDefinition;
}

/** An open machine: its checkpoint and the log's ops after it (`tail`), in seq order. */
export interface LoadedMachine extends MachineRecord {
  tail: CommittedOp<Op>[];
}

/**
 * Why a call failed: `network` (could not reach the server: retry later, keep the
 * queue), `forbidden` (not an editor), `not_found`, `invalid` (the server refused the
 * input), `too_big` (over the server's limits), `unknown`. Nothing is refused for being
 * behind: the server orders appends.
 */
export type DocumentErrorCode = 'network' | 'forbidden' | 'not_found' | 'invalid' | 'too_big' | 'unknown';

export interface DocumentError {
  code: DocumentErrorCode;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: DocumentError };

/** A batch to append to the machine's log: only ops, so its size does not grow with the chart. */
export interface CommitRequest {
  machineId: string;
  clientId: string;
  batchId: string;
  ops: Op[];
}

export type CommitResult = { ok: true; receipt: CommitReceipt } | { ok: false; error: DocumentError };

/** Facts from a machine's live op stream, past tense. */
export type OpStreamEvent =
  | { type: 'ops.received'; ops: CommittedOp<Op>[] }
  /** Another editor's batch, sent to the peers as it went to the server: not in the log yet. */
  | { type: 'ops.seen'; batch: RemoteBatch<Op> }
  /** Batches sent ahead now reach this document, and its own go out ahead (the channel for them joined). */
  | { type: 'ops.aheadLive' }
  /** The stream is (again) live: anything committed while it was not is in the log. */
  | { type: 'ops.subscribed' }
  | { type: 'connection.lost' };

/** Facts from a project's live machine list, past tense. */
export type MachineListEvent =
  | { type: 'machines.upserted'; machine: MachineSummary }
  | { type: 'machines.deleted'; machineId: string }
  /** The stream is (again) live: reload the list to catch up with what it missed. */
  | { type: 'machines.subscribed' }
  | { type: 'machines.lost' };

export interface DocumentPort {
  listMachines(projectId: string): Promise<Result<MachineSummary[]>>;
  /** The latest checkpoint plus the log after it. */
  loadMachine(machineId: string): Promise<Result<LoadedMachine>>;
  createMachine(input: {
    projectId: string;
    name: string;
    definition: MachineDefinition;
  }): Promise<Result<MachineRecord>>;
  renameMachine(machineId: string, name: string): Promise<Result<MachineSummary>>;
  deleteMachine(machineId: string): Promise<Result<void>>;
  /**
   * Appends a batch to the log; the same batch goes at once to the machine's other open
   * documents (`ops.seen` there), which show it until the log's copy arrives.
   */
  commitOps(request: CommitRequest): Promise<CommitResult>;
  /** Asks trusted code to move the checkpoint to the log's head (fire and forget). */
  requestCheckpoint(machineId: string): void;
  /** The log after `version`, in seq order. */
  opsSince(machineId: string, version: number): Promise<Result<CommittedOp<Op>[]>>;
  /** Inserts into the machine's log as they commit, others' batches before they do, plus the stream's own life. */
  opEvents$(machineId: string): Observable<OpStreamEvent>;
  /** A project's machines as they are created, renamed, edited (version) and deleted. */
  machineListEvents$(projectId: string): Observable<MachineListEvent>;
}

/** Where a document's unsent edits wait across reloads (localStorage in the browser). */
export interface QueueStore {
  load(machineId: string): Promise<QueueSnapshot<MachineDefinition, Op> | null>;
  /** null clears it: nothing is waiting. */
  save(machineId: string, snapshot: QueueSnapshot<MachineDefinition, Op> | null): void;
}
