import type { Field } from '../ast.ts';
import { columnNotFound, parseError } from '../errors.ts';
import type { DbFunction, SchemaCache, Table } from '../schema.ts';
import { ident, qualified, type SqlBuilder } from './sql.ts';

/** `"alias"."col"->$1->>$2`: a column (checked against the cache) and a bound JSON path. */
export function fieldSql(table: Table, alias: string, field: Field, b: SqlBuilder): string {
  let sql: string;
  if (table.columns.has(field.name)) sql = `${ident(alias)}.${ident(field.name)}`;
  else {
    const fn = computedField(table, field.name);
    if (!fn) throw columnNotFound(alias, field.name);
    sql = rowCall(fn, alias);
  }
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

/** A computed field: a function of the row returning one scalar (not a table's rows). */
export function computedField(table: Table, name: string): DbFunction | undefined {
  return table.computed.get(name)?.find((fn) => fn.returnKind !== 'void' && !fn.returnTable && !fn.returnsSet);
}

/** `schema.fn(alias::argtype)`: the cast also turns a function result's anonymous record into the row type. */
export function rowCall(fn: DbFunction, alias: string): string {
  const [schema, name] = (fn.argTable ?? '').split('\u0000') as [string, string];
  return `${qualified(fn.schema, fn.name)}(${ident(alias)}::${qualified(schema, name)})`;
}
