import type { Pgoutput } from 'pg-logical-replication';
import type { Catalog } from './catalog.ts';
import type { TypeInfo } from './values.ts';

/** Text-form values of one row; a key is absent when its value is unknown (unchanged TOAST). */
export type TextRow = Record<string, string | null>;

export interface RelationColumn {
  name: string;
  typeOid: number;
  /** Filled once `ready` resolves. */
  type?: TypeInfo;
}

/** What pgoutput's Relation message tells us, plus catalog facts, per table version. */
export interface RelationInfo {
  oid: number;
  schema: string;
  table: string;
  replicaIdentity: 'default' | 'nothing' | 'full' | 'index';
  columns: RelationColumn[];
  /** Replica identity columns as pgoutput flags them (every column with identity full). */
  identityColumns: string[];
  primaryKey: string[];
  /** Resolves when types and the primary key are loaded; never rejects. */
  ready: Promise<void>;
}

export interface WalChange {
  type: 'INSERT' | 'UPDATE' | 'DELETE';
  relation: RelationInfo;
  /** The transaction id from BEGIN: the RLS check waits until it is visible. */
  xid: number | null;
  /** ISO 8601 with milliseconds and `Z`, as hosted sends `commit_timestamp`. */
  commitTimestamp: string;
  /** INSERT/UPDATE: the new row. */
  newRow: TextRow | null;
  /** UPDATE/DELETE: the old row's identity (key columns, or every column with replica identity full). */
  oldRow: TextRow | null;
  /** True when `oldRow` holds the whole old row (replica identity full). */
  oldIsFull: boolean;
}

/** pgoutput's commit time (µs since the Unix epoch) as hosted formats commit_timestamp. */
export function commitTimestamp(micros: bigint): string {
  return new Date(Number(micros / 1000n)).toISOString();
}

function textRow(tuple: Record<string, unknown> | null, only?: string[]): TextRow | null {
  if (!tuple) return null;
  const row: TextRow = {};
  for (const [name, value] of Object.entries(tuple)) {
    if (only && !only.includes(name)) continue;
    // undefined: an unchanged TOAST value with no old copy to fill it from; leave it out.
    if (value === undefined) continue;
    row[name] = value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);
  }
  return row;
}

/**
 * Turns the pgoutput message stream into row changes. Values stay in PostgreSQL's text
 * form (the replication reader disables pg's type parsers) so that conversion to JSON,
 * filter comparison and the RLS lookup all start from what PostgreSQL printed.
 */
export class ChangeDecoder {
  private readonly relations = new Map<number, RelationInfo>();
  private commitTime = commitTimestamp(0n);
  private xid: number | null = null;

  constructor(
    private readonly catalog: Catalog,
    private readonly log: (line: string) => void,
  ) {}

  relation(oid: number): RelationInfo | undefined {
    return this.relations.get(oid);
  }

  /** Returns the change a message carries, or null for bookkeeping messages. */
  decode(message: Pgoutput.Message): WalChange | null {
    switch (message.tag) {
      case 'begin':
        // BEGIN carries the transaction's commit timestamp (the same value COMMIT repeats),
        // so changes can be routed as they arrive rather than after the whole transaction.
        this.commitTime = commitTimestamp(message.commitTime as bigint);
        this.xid = message.xid;
        return null;
      case 'commit':
        this.commitTime = commitTimestamp(message.commitTime as bigint);
        return null;
      case 'relation':
        this.registerRelation(message);
        return null;
      case 'insert':
        return this.change('INSERT', message.relation.relationOid, message.new, null, false);
      case 'update': {
        const relation = this.relations.get(message.relation.relationOid);
        const full = message.old !== null;
        const old = full ? message.old : message.key;
        return this.change('UPDATE', message.relation.relationOid, message.new, old, full, relation);
      }
      case 'delete': {
        const full = message.old !== null;
        return this.change('DELETE', message.relation.relationOid, null, full ? message.old : message.key, full);
      }
      case 'truncate':
        // Hosted realtime streams INSERT, UPDATE and DELETE only; a TRUNCATE is noted, not sent.
        this.log(
          `[realtime] truncate of ${message.relations.map((r) => `${r.schema}.${r.name}`).join(', ')} not streamed`,
        );
        return null;
      default:
        // type, origin and logical messages: types are resolved from the catalog instead.
        return null;
    }
  }

  private registerRelation(message: Pgoutput.MessageRelation): void {
    const info: RelationInfo = {
      oid: message.relationOid,
      schema: message.schema,
      table: message.name,
      replicaIdentity: message.replicaIdentity,
      columns: message.columns.map((c) => ({ name: c.name, typeOid: c.typeOid })),
      identityColumns: message.keyColumns,
      primaryKey: [],
      ready: Promise.resolve(),
    };
    info.ready = (async () => {
      try {
        await this.catalog.resolveTypes(info.columns.map((c) => c.typeOid));
        for (const column of info.columns) column.type = this.catalog.type(column.typeOid);
        info.primaryKey = await this.catalog.primaryKey(info.oid);
      } catch (error) {
        this.log(`[realtime] could not describe ${info.schema}.${info.table}: ${String(error)}`);
      }
    })();
    this.relations.set(info.oid, info);
  }

  private change(
    type: WalChange['type'],
    relationOid: number,
    newTuple: Record<string, unknown> | null,
    oldTuple: Record<string, unknown> | null,
    oldIsFull: boolean,
    known?: RelationInfo,
  ): WalChange | null {
    const relation = known ?? this.relations.get(relationOid);
    if (!relation) {
      this.log(`[realtime] change for unknown relation ${relationOid} skipped`);
      return null;
    }
    return {
      type,
      relation,
      xid: this.xid,
      commitTimestamp: this.commitTime,
      newRow: textRow(newTuple),
      oldRow: textRow(oldTuple),
      oldIsFull,
    };
  }
}
