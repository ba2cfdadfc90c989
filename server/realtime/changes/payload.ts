import type pg from 'pg';
import type { TextRow, WalChange } from './decode.ts';
import type { ChangeData } from './types.ts';
import { needsSql, toJsonValue, type TypeInfo } from './values.ts';

export type JsonRow = Record<string, unknown>;

/** A change's rows in JSON form, computed once and shared by every subscriber's payload. */
export interface ConvertedRows {
  newRow: JsonRow | null;
  oldRow: JsonRow | null;
  /** Over hosted's 1 MiB record limit: large values are left out and an error is attached. */
  tooLarge: boolean;
}

const MAX_RECORD_BYTES = 1024 * 1024;
/** With an oversized record hosted keeps only values whose JSON is at most this long. */
const SMALL_VALUE_BYTES = 64;

function rowBytes(row: TextRow | null): number {
  let n = 0;
  for (const [name, value] of Object.entries(row ?? {})) n += name.length + (value?.length ?? 4);
  return n;
}

async function convertRow(
  pool: pg.Pool,
  change: WalChange,
  row: TextRow | null,
  tooLarge: boolean,
): Promise<JsonRow | null> {
  if (!row) return null;
  const out: JsonRow = {};
  const viaSql: { name: string; text: string; type: TypeInfo }[] = [];
  for (const column of change.relation.columns) {
    if (!(column.name in row)) continue;
    const text = row[column.name] ?? null;
    const type = column.type;
    if (!type) out[column.name] = text;
    else if (text !== null && needsSql(type)) viaSql.push({ name: column.name, text, type });
    else out[column.name] = toJsonValue(type, text);
  }
  if (viaSql.length > 0) {
    // Composite values become JSON objects the way to_jsonb makes them; only SQL knows
    // their field names and types, so ask it (as the backend, a pure conversion).
    const select = viaSql.map((v, i) => `to_jsonb($${i + 1}::${v.type.castName}) as v${i}`).join(', ');
    try {
      const result = await pool.query<Record<string, unknown>>(
        `select ${select}`,
        viaSql.map((v) => v.text),
      );
      viaSql.forEach((v, i) => (out[v.name] = result.rows[0]?.[`v${i}`] ?? v.text));
    } catch {
      for (const v of viaSql) out[v.name] = v.text;
    }
  }
  if (tooLarge) {
    for (const [name, value] of Object.entries(out)) {
      if ((JSON.stringify(value) ?? '').length > SMALL_VALUE_BYTES) delete out[name];
    }
  }
  return out;
}

export async function convertRows(pool: pg.Pool, change: WalChange): Promise<ConvertedRows> {
  const tooLarge = rowBytes(change.newRow) + rowBytes(change.oldRow) > MAX_RECORD_BYTES;
  const [newRow, oldRow] = await Promise.all([
    convertRow(pool, change, change.newRow, tooLarge),
    convertRow(pool, change, change.oldRow, tooLarge),
  ]);
  return { newRow, oldRow, tooLarge };
}

function pick(row: JsonRow | null, names: Iterable<string>): JsonRow {
  const out: JsonRow = {};
  if (!row) return out;
  for (const name of names) if (name in row) out[name] = row[name];
  return out;
}

/**
 * The `data` of a postgres_changes message for subscribers of one role: hosted shows a
 * role only the columns it may select; an UPDATE's old_record holds the replica identity
 * (the primary key, or the whole old row with replica identity full); a DELETE on a
 * table with RLS carries only the primary key, since the deleted row cannot be checked.
 */
export function buildPayload(
  change: WalChange,
  rows: ConvertedRows,
  selectable: ReadonlySet<string>,
  rlsEnabled: boolean,
): ChangeData {
  const { relation } = change;
  const visible = relation.columns.map((c) => c.name).filter((name) => selectable.has(name));
  const data: ChangeData = {
    schema: relation.schema,
    table: relation.table,
    commit_timestamp: change.commitTimestamp,
    type: change.type,
    columns: relation.columns
      .filter((c) => selectable.has(c.name))
      .map((c) => ({ name: c.name, type: c.type?.name ?? 'text' })),
    errors: rows.tooLarge ? ['Error 413: Payload Too Large'] : null,
  };
  if (change.type !== 'DELETE') data.record = pick(rows.newRow, visible);
  if (change.type === 'UPDATE') {
    if (change.oldIsFull) data.old_record = pick(rows.oldRow, visible);
    else {
      // pgoutput sends the old key only when it changed; hosted always reports it.
      const identity = relation.identityColumns.filter((name) => selectable.has(name));
      data.old_record =
        rows.oldRow && Object.keys(rows.oldRow).length > 0 ? pick(rows.oldRow, identity) : pick(rows.newRow, identity);
    }
  }
  if (change.type === 'DELETE') {
    const names = rlsEnabled ? relation.primaryKey.filter((name) => selectable.has(name)) : visible;
    data.old_record = pick(rows.oldRow, names);
  }
  return data;
}

/** What hosted sends a subscriber when a change cannot be checked for it. */
export function errorPayload(change: WalChange, error: string): ChangeData {
  const data: ChangeData = {
    schema: change.relation.schema,
    table: change.relation.table,
    commit_timestamp: change.commitTimestamp,
    type: change.type,
    columns: [],
    errors: [error],
  };
  if (change.type !== 'DELETE') data.record = {};
  if (change.type !== 'INSERT') data.old_record = {};
  return data;
}
