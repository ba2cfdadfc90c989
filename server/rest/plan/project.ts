import type { SelectAggregate } from '../ast.ts';
import { columnNotFound } from '../errors.ts';
import type { SchemaCache } from '../schema.ts';
import { castSql, fieldSql, outputName } from './fields.ts';
import type { EmbedNode, ReadNode } from './read.ts';
import { ident, type SqlBuilder } from './sql.ts';

/** One output column of a level: its SQL, its JSON key, and whether it aggregates. */
interface Entry {
  sql: string;
  name: string;
  aggregate: boolean;
}

/** The JSON keys one level produces, in order (spreads contribute their children's). */
export function outputNames(node: ReadNode): string[] {
  const names: string[] = [];
  for (const item of node.items) {
    if (item.kind === 'star') names.push(...node.table.columnOrder);
    else if (item.kind === 'column') names.push(isBareCount(node, item) ? 'count' : outputName(item.field, item.alias));
    else if (item.kind === 'aggregate') names.push(item.alias ?? item.fn);
  }
  for (const e of node.embeds) {
    if (e.hidden) continue;
    names.push(...(e.spread ? outputNames(e.node) : [e.key]));
  }
  return names;
}

/** `messages(count)`: a bare `count` on a table without such a column is `count()`. */
function isBareCount(node: ReadNode, item: { field: { name: string; path: unknown[] }; cast: string | null }): boolean {
  return (
    item.field.name === 'count' &&
    item.field.path.length === 0 &&
    item.cast === null &&
    !node.table.columns.has('count')
  );
}

function aggregateSql(cache: SchemaCache, node: ReadNode, item: SelectAggregate, b: SqlBuilder): string {
  let sql: string;
  if (item.field === null) sql = 'count(*)';
  else {
    if (
      item.field.path.length === 0 &&
      !node.table.columns.has(item.field.name) &&
      !node.table.computed.has(item.field.name)
    ) {
      throw columnNotFound(node.alias, item.field.name);
    }
    sql = `${item.fn}(${fieldSql(node.table, node.alias, item.field, b)})`;
  }
  return item.cast ? `(${sql})::${castSql(cache, item.cast)}` : sql;
}

function embedEntries(e: EmbedNode, aggregating: boolean): Entry[] {
  if (e.hidden) return [];
  // Grouping needs equality, which json lacks: an aggregating level groups by jsonb.
  const json = (sql: string) => (aggregating ? `(${sql})::jsonb` : sql);
  if (e.spread) {
    return outputNames(e.node).map((n) => ({
      sql: e.toOne ? `${ident(e.lateral)}.${ident(n)}` : json(`${ident(e.lateral)}.${ident(n)}`),
      name: n,
      aggregate: false,
    }));
  }
  const value = e.toOne ? `${ident(e.lateral)}.j` : `coalesce(${ident(e.lateral)}.j, '[]'::json)`;
  return [{ sql: json(value), name: e.key, aggregate: false }];
}

/** The select list of a level and, when it aggregates, its `group by`. */
export function projection(cache: SchemaCache, node: ReadNode, b: SqlBuilder): { sql: string; groupBy: string } {
  const aggregating = node.items.some((i) => i.kind === 'aggregate' || (i.kind === 'column' && isBareCount(node, i)));
  const entries: Entry[] = [];
  for (const item of node.items) {
    if (item.kind === 'star') {
      if (!aggregating) entries.push({ sql: `${ident(node.alias)}.*`, name: '', aggregate: false });
      else
        for (const c of node.table.columnOrder)
          entries.push({ sql: `${ident(node.alias)}.${ident(c)}`, name: c, aggregate: false });
    } else if (item.kind === 'aggregate') {
      entries.push({ sql: aggregateSql(cache, node, item, b), name: item.alias ?? item.fn, aggregate: true });
    } else if (item.kind === 'column') {
      if (isBareCount(node, item)) {
        entries.push({ sql: 'count(*)', name: item.alias ?? 'count', aggregate: true });
        continue;
      }
      let sql = fieldSql(node.table, node.alias, item.field, b);
      if (item.cast) sql = `(${sql})::${castSql(cache, item.cast)}`;
      entries.push({ sql, name: outputName(item.field, item.alias), aggregate: false });
    }
  }
  for (const e of node.embeds) entries.push(...embedEntries(e, aggregating));
  const sql = entries.map((e) => (e.name === '' ? e.sql : `${e.sql} as ${ident(e.name)}`)).join(', ');
  const groups = aggregating ? entries.filter((e) => !e.aggregate).map((e) => e.sql) : [];
  return { sql, groupBy: groups.length > 0 ? ` group by ${groups.join(', ')}` : '' };
}
