import type { RequestRole } from '../../postgres/pool.ts';

/**
 * The contract between the channel layer (server/realtime/*.ts) and the postgres
 * changes feed (server/realtime/changes/). The channel layer owns sockets, topics and
 * binding ids; the feed owns replication, filtering and per-subscriber RLS checks.
 */

export type ChangeEvent = 'INSERT' | 'UPDATE' | 'DELETE' | '*';

/** One `postgres_changes` binding from a phx_join, with the id the server assigned. */
export interface ChangeBinding {
  id: number;
  event: ChangeEvent;
  schema: string;
  /** Absent or '*' means every table of the schema. */
  table?: string;
  /** PostgREST-style `column=op.value`; ops eq, neq, lt, lte, gt, gte, in. */
  filter?: string;
}

export interface ChangeColumn {
  name: string;
  /** PostgreSQL type name as hosted realtime reports it: int8, text, uuid, jsonb, timestamptz, _text… */
  type: string;
}

/** The `data` of a `postgres_changes` message, exactly as the client expects it. */
export interface ChangeData {
  schema: string;
  table: string;
  commit_timestamp: string;
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  columns: ChangeColumn[];
  record?: Record<string, unknown>;
  old_record?: Record<string, unknown>;
  errors: string[] | null;
}

export interface ChangeSubscriberIdentity {
  role: RequestRole;
  claims: Record<string, unknown>;
}

export interface ChangeSubscription {
  /** After an access_token update: later changes are authorised with these claims. */
  updateIdentity(identity: ChangeSubscriberIdentity): void;
  unsubscribe(): void;
}

export interface ChangeFeed {
  /**
   * Checks bindings before a join is accepted; returns an error message for the first
   * invalid one (unknown table, bad filter syntax/column/operator), or null.
   */
  validate(bindings: ChangeBinding[], identity: ChangeSubscriberIdentity): Promise<string | null>;
  /**
   * Registers a subscriber. `deliver` is called once per change that matches at least
   * one binding AND that the subscriber's role and claims may select under RLS, with
   * the ids of every matching binding.
   */
  subscribe(
    identity: ChangeSubscriberIdentity,
    bindings: ChangeBinding[],
    deliver: (ids: number[], data: ChangeData) => void,
  ): ChangeSubscription;
  /** Resolves once replication is streaming (before "Subscribed to PostgreSQL"). */
  ready(): Promise<void>;
  start(): Promise<void>;
  /** Stops streaming and drops the replication slot. */
  close(): Promise<void>;
}
