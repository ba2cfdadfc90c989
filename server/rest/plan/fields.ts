import type { Field } from '../ast.ts';
import { columnNotFound, parseError } from '../errors.ts';
import type { SchemaCache, Table } from '../schema.ts';
import { ident, qualified, type SqlBuilder } from './sql.ts';

/** `"alias"."col"->$1->>$2`: a column (checked against the cache) and a bound JSON path. */
export function fieldSql(table: Table, alias: string, field: Field, b: SqlBuilder): string {
  if (!table.columns.has(field.name)) throw columnNotFound(table.name, field.name);
  let sql = `${ident(alias)}.${ident(field.name)}`;
  for (const step of field.path) {
    const key = /^-?\d+$/.test(step.key) ? b.param(Number(step.key), 'int') : b.param(step.key, 'text');
    sql += `${step.arrow}${key}`;
  }
  return sql;
}

/** The JSON key a selected field gets: its alias, else the last JSON key, else the column. */
export function outputName(field: Field, alias: string | null): string {
  return alias ?? field.path[field.path.length - 1]?.key ?? field.name;
}

/** A `::type` from the request, accepted only if the type exists (then written qualified). */
export function castSql(cache: SchemaCache, cast: string): string {
  const array = cast.endsWith('[]');
  const base = (array ? cast.slice(0, -2) : cast).trim().toLowerCase();
  const type = cache.types.get(base);
  if (!type) throw parseError('select parameter', cast, `unexpected "${cast}" expecting a known type name`);
  return `${qualified(type.schema, type.name)}${array ? '[]' : ''}`;
}
