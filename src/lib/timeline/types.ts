import type { Op } from '../model/op-types.ts';

/** One op of a machine's log with who wrote it and when (the server's clock). */
export interface AuthoredOp {
  seq: number;
  batchId: string;
  author: string | null;
  at: string;
  op: Op;
}

/** A simulation as the timeline shows its start. */
export interface SimulationStart {
  id: string;
  createdBy: string | null;
  at: string;
  machineVersion: number;
  forkedFrom: string | null;
}

/** One event of any simulation of the machine, as the timeline shows it. */
export interface SimulationMark {
  simulationId: string;
  seq: number;
  sender: string | null;
  kind: 'event' | 'time';
  type: string | null;
  at: string;
}

export type TimelineKind = 'edit' | 'simulation' | 'event' | 'joined';
export const TIMELINE_KINDS: readonly TimelineKind[] = ['edit', 'simulation', 'event', 'joined'];

interface EntryBase {
  /** Unique and stable: the list's key. */
  key: string;
  kind: TimelineKind;
  /** ISO time: the server's for edits and simulations, this browser's for joins. */
  at: string;
  /** `at` in epoch milliseconds: the order entries show in. */
  time: number;
  /** Who did it (a user id), null when unknown. */
  person: string | null;
  /** What happened, in words, without the person (the view puts their name first). */
  text: string;
}

/** One batch of edits: ops `firstSeq..lastSeq`, version `lastSeq` after it. */
export interface EditEntry extends EntryBase {
  kind: 'edit';
  batchId: string;
  firstSeq: number;
  lastSeq: number;
  /** Ids of the states and transitions the batch added or changed (what time travel highlights). */
  changed: string[];
}

export interface SimulationEntry extends EntryBase {
  kind: 'simulation';
  simulationId: string;
}

export interface EventEntry extends EntryBase {
  kind: 'event';
  simulationId: string;
  seq: number;
}

export interface JoinedEntry extends EntryBase {
  kind: 'joined';
}

export type TimelineEntry = EditEntry | SimulationEntry | EventEntry | JoinedEntry;
