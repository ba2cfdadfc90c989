import type pg from 'pg';
import { tableKey, type ForeignKey, type SchemaCache } from './schema.ts';

/** Which base-table columns each view of the exposed schemas reads. */
const VIEW_USAGE_SQL = `
select view_schema, view_name, table_schema, table_name, array_agg(column_name::text) as columns
from information_schema.view_column_usage
where view_schema = any($1)
group by 1, 2, 3, 4`;

interface Usage {
  view_schema: string;
  view_name: string;
  table_schema: string;
  table_name: string;
  columns: string[];
}

/**
 * Gives views the foreign keys of the tables they expose, as PostgREST does, so embedding
 * works through views. A key carries over when the view reads every key column from the
 * base table and has columns of the same names (the common `select ... from t` view).
 */
export async function addViewRelationships(db: pg.Pool | pg.Client, cache: SchemaCache): Promise<void> {
  const usage = (await db.query<Usage>(VIEW_USAGE_SQL, [cache.schemas as string[]])).rows;
  const base = [...cache.foreignKeys];
  const exposes = (u: Usage, cols: string[]) => {
    const view = cache.tables.get(tableKey(u.view_schema, u.view_name));
    return !!view && cols.every((c) => u.columns.includes(c) && view.columns.has(c));
  };
  for (const u of usage) {
    for (const fk of base) {
      if (fk.schema === u.table_schema && fk.table === u.table_name && exposes(u, fk.columns)) {
        cache.foreignKeys.push({ ...fk, schema: u.view_schema, table: u.view_name, viaView: true });
      }
      if (fk.foreignSchema === u.table_schema && fk.foreignTable === u.table_name && exposes(u, fk.foreignColumns)) {
        cache.foreignKeys.push({ ...fk, foreignSchema: u.view_schema, foreignTable: u.view_name, viaView: true });
      }
    }
  }
  // View to view: both ends replaced.
  const copies = cache.foreignKeys.filter((fk): fk is ForeignKey & { viaView: true } => fk.viaView === true);
  for (const u of usage) {
    for (const fk of copies) {
      if (fk.foreignSchema === u.table_schema && fk.foreignTable === u.table_name && exposes(u, fk.foreignColumns)) {
        cache.foreignKeys.push({ ...fk, foreignSchema: u.view_schema, foreignTable: u.view_name });
      }
    }
  }
}
