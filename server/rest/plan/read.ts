import type { LevelModifiers, OrderTerm, SelectEmbed, SelectItem } from '../ast.ts';
import { RestError } from '../errors.ts';
import type { SchemaCache, Table } from '../schema.ts';
import { fieldSql, rowCall } from './fields.ts';
import { conditionSql, type FilterScope } from './filter.ts';
import { outputNames, projection } from './project.ts';
import { findRelationship, isToOne, type Relationship } from './relationships.ts';
import { ident, qualified, type SqlBuilder } from './sql.ts';

/** One level of a read: a table, what to select from it, and its embedded children. */
export interface ReadNode {
  table: Table;
  alias: string;
  items: SelectItem[];
  mods: LevelModifiers;
  embeds: EmbedNode[];
}

export interface EmbedNode {
  key: string;
  rel: Relationship;
  toOne: boolean;
  inner: boolean;
  /** `child()` selects nothing: it only filters its parent. */
  hidden: boolean;
  /** `...child(cols)`: its columns are the parent's. */
  spread: boolean;
  node: ReadNode;
  /** Alias of the lateral subquery holding the JSON result in column `j`. */
  lateral: string;
}

const EMPTY: LevelModifiers = { conditions: [], order: null, limit: null, offset: null };

/** Resolves the select tree against the schema cache: tables, relationships, levels. */
export function resolveRead(
  cache: SchemaCache,
  table: Table,
  select: SelectItem[] | null,
  levels: Map<string, LevelModifiers>,
  rootAlias = table.name,
): ReadNode {
  let counter = 0;
  const used = new Set<string>(['']);
  const build = (t: Table, alias: string, items: SelectItem[], path: string): ReadNode => {
    const node: ReadNode = { table: t, alias, items, mods: levels.get(path) ?? EMPTY, embeds: [] };
    for (const item of items) {
      if (item.kind !== 'embed') continue;
      const embed = buildEmbed(t, item, path);
      // Two embeds under one name would overwrite each other: PostgreSQL's error, as PostgREST sends it.
      if (!embed.spread && node.embeds.some((e) => !e.spread && e.key === embed.key)) {
        throw new RestError(400, '42712', `table name "${t.name}_${embed.key}_1" specified more than once`);
      }
      node.embeds.push(embed);
    }
    return node;
  };
  const buildEmbed = (parent: Table, item: SelectEmbed, path: string): EmbedNode => {
    const rel = findRelationship(cache, parent, item.name, item.hint);
    const key = item.alias ?? item.name;
    const childPath = path === '' ? key : `${path}.${key}`;
    used.add(childPath);
    const n = ++counter;
    return {
      key,
      rel,
      spread: item.spread,
      toOne: isToOne(rel),
      inner: item.join === 'inner',
      hidden: item.select.length === 0,
      node: build(rel.target, `${rel.target.name}_${n}`, item.select, childPath),
      lateral: `${rel.target.name}_${n}_j`,
    };
  };
  const root = build(table, rootAlias, select ?? [{ kind: 'star' }], '');
  for (const path of levels.keys()) {
    if (!used.has(path)) {
      const name = path.split('.').pop() ?? path;
      throw new RestError(
        400,
        'PGRST108',
        `'${name}' is not an embedded resource in this request`,
        null,
        `Verify that '${name}' is included in the 'select' query parameter.`,
      );
    }
  }
  return root;
}

function joinCondition(embed: EmbedNode, parentAlias: string): { from: string; where: string[] } {
  const { rel, node } = embed;
  if (rel.kind === 'computed') return { from: `${rowCall(rel.fn, parentAlias)} as ${ident(node.alias)}`, where: [] };
  const target = `${qualified(node.table.schema, node.table.name)} as ${ident(node.alias)}`;
  const eq = (a: string, ac: string, b: string, bc: string) => `${ident(a)}.${ident(ac)} = ${ident(b)}.${ident(bc)}`;
  if (rel.kind === 'many-to-one') {
    return {
      from: target,
      where: rel.fk.columns.map((c, i) => eq(node.alias, rel.fk.foreignColumns[i]!, parentAlias, c)),
    };
  }
  if (rel.kind === 'one-to-many') {
    return {
      from: target,
      where: rel.fk.columns.map((c, i) => eq(node.alias, c, parentAlias, rel.fk.foreignColumns[i]!)),
    };
  }
  const j = `${node.alias}_x`;
  const on = rel.sink.columns.map((c, i) => eq(j, c, node.alias, rel.sink.foreignColumns[i]!)).join(' and ');
  return {
    from: `${target} join ${qualified(rel.junction.schema, rel.junction.name)} as ${ident(j)} on ${on}`,
    where: rel.source.columns.map((c, i) => eq(j, c, parentAlias, rel.source.foreignColumns[i]!)),
  };
}

/** `order=rel(col)`: a column of a to-one embed of this level, read from its JSON. */
function relatedOrderSql(node: ReadNode, t: OrderTerm, b: SqlBuilder): string {
  const e = node.embeds.find((x) => x.key === t.relation && !x.spread);
  if (!e) {
    throw new RestError(
      400,
      'PGRST108',
      `'${t.relation}' is not an embedded resource in this request`,
      null,
      `Verify that '${t.relation}' is included in the 'select' query parameter.`,
    );
  }
  if (!e.toOne) {
    throw new RestError(
      400,
      'PGRST118',
      `A related order on '${t.relation}' is not possible`,
      `'${node.table.name}' and '${t.relation}' do not form a many-to-one or one-to-one relationship`,
    );
  }
  fieldSql(e.node.table, e.node.alias, { name: t.field.name, path: [] }, b);
  let sql = `(${ident(e.lateral)}.j::jsonb -> ${b.param(t.field.name, 'text')})`;
  for (const step of t.field.path) sql = `(${sql} ${step.arrow} ${b.param(step.key, 'text')})`;
  return sql;
}

function orderSql(node: ReadNode, terms: OrderTerm[] | null, b: SqlBuilder): string {
  if (!terms || terms.length === 0) return '';
  const parts = terms.map((t) => {
    let sql = t.relation ? relatedOrderSql(node, t, b) : fieldSql(node.table, node.alias, t.field, b);
    if (t.direction) sql += ` ${t.direction}`;
    if (t.nulls) sql += ` nulls ${t.nulls}`;
    return sql;
  });
  return ` order by ${parts.join(', ')}`;
}

function limitSql(limit: number | null, offset: number | null, b: SqlBuilder): string {
  let sql = '';
  if (limit !== null) sql += ` limit ${b.param(limit, 'bigint')}`;
  if (offset !== null && offset > 0) sql += ` offset ${b.param(offset, 'bigint')}`;
  return sql;
}

interface Body {
  /** `from ... join lateral ...` */
  from: string;
  where: string[];
}

/** The lateral joins and conditions of one level; embeds only filter when used or inner. */
function levelBody(cache: SchemaCache, node: ReadNode, source: string, b: SqlBuilder, extraWhere: string[]): Body {
  const joins: string[] = [];
  const where = [...extraWhere];
  const used = new Set<EmbedNode>();
  const scope: FilterScope = { table: node.table, alias: node.alias, embeds: new Map() };
  for (const e of node.embeds) {
    if (e.spread) continue;
    scope.embeds.set(e.key, { sql: `${ident(e.lateral)}.j`, used: () => used.add(e) });
  }
  // Embeds first: their SQL binds parameters in text order, before this level's filters.
  for (const e of node.embeds) {
    const join = e.spread && e.inner ? 'join' : 'left join';
    joins.push(`${join} lateral (${embedSql(cache, e, node.alias, b)}) as ${ident(e.lateral)} on true`);
  }
  for (const c of node.mods.conditions) where.push(conditionSql(c, scope, b));
  for (const e of node.embeds) if (e.inner && !e.spread) where.push(`${ident(e.lateral)}.j is not null`);
  return { from: `${source} ${joins.join(' ')}`.trim(), where };
}

function whereSql(where: string[]): string {
  return where.length > 0 ? ` where ${where.map((w) => `(${w})`).join(' and ')}` : '';
}

function embedSql(cache: SchemaCache, e: EmbedNode, parentAlias: string, b: SqlBuilder): string {
  const { from, where } = joinCondition(e, parentAlias);
  const body = levelBody(cache, e.node, from, b, where);
  const proj = projection(cache, e.node, b);
  const order = orderSql(e.node, e.node.mods.order, b);
  const limit = limitSql(e.toOne ? 1 : e.node.mods.limit, e.toOne ? null : e.node.mods.offset, b);
  const inner = `select ${proj.sql} from ${body.from}${whereSql(body.where)}${proj.groupBy}${order}${limit}`;
  const r = `${e.node.alias}_r`;
  // A to-one spread's columns come straight from the subquery (at most one row).
  if (e.spread && e.toOne) return inner;
  // A to-many spread gives each of its columns as an array.
  if (e.spread) {
    const cols = outputNames(e.node).map(
      (n) => `coalesce(json_agg(${ident(r)}.${ident(n)}), '[]'::json) as ${ident(n)}`,
    );
    return `select ${cols.join(', ')} from (${inner}) as ${ident(r)}`;
  }
  if (e.toOne) return `select row_to_json(${ident(r)}) as j from (${inner}) as ${ident(r)}`;
  return `select json_agg(${ident(r)}) as j from (${inner}) as ${ident(r)}`;
}

export interface ReadSql {
  /** Selects the page's rows (one JSON object per row once aggregated). */
  rows: string;
  /** Counts every row the filters match, ignoring limit/offset. */
  count: string;
}

/**
 * The SQL of a read. `source` replaces the table (a mutation's `pgrst_source`, a function
 * call), in which case top-level conditions apply only with `keepConditions`.
 */
export function readSql(
  cache: SchemaCache,
  root: ReadNode,
  b: SqlBuilder,
  page: { limit: number | null; offset: number | null },
  source?: string,
  keepConditions = false,
): ReadSql {
  const from = source ?? `${qualified(root.table.schema, root.table.name)}`;
  const node = source && !keepConditions ? { ...root, mods: { ...root.mods, conditions: [] } } : root;
  const body = levelBody(cache, node, `${from} as ${ident(root.alias)}`, b, []);
  const proj = projection(cache, root, b);
  const where = whereSql(body.where);
  const order = orderSql(root, root.mods.order, b);
  const rows = `select ${proj.sql} from ${body.from}${where}${proj.groupBy}${order}${limitSql(page.limit, page.offset, b)}`;
  return { rows, count: `select count(*) from ${body.from}${where}` };
}
