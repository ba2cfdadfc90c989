import type { Condition, Filter, Operator } from '../ast.ts';
import { RestError } from '../errors.ts';
import type { Table } from '../schema.ts';
import { fieldSql } from './fields.ts';
import type { SqlBuilder } from './sql.ts';

const BINARY: Partial<Record<Operator, string>> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'like',
  ilike: 'ilike',
  match: '~',
  imatch: '~*',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxl: '&>',
  nxr: '&<',
  adj: '-|-',
  isdistinct: 'is distinct from',
};
const TSQUERY: Partial<Record<Operator, string>> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
};

/** Where a level's conditions are evaluated: its table, its SQL alias, its embeds' results. */
export interface FilterScope {
  table: Table;
  alias: string;
  /** Output name of an embed -> SQL of its JSON result (for `embed=is.null`). */
  embeds: Map<string, { sql: string; used: () => void }>;
}

function filterSql(f: Filter, scope: FilterScope, b: SqlBuilder): string {
  const embed = f.field.path.length === 0 ? scope.embeds.get(f.field.name) : undefined;
  if (embed && !scope.table.columns.has(f.field.name)) {
    if (f.op !== 'is' || f.value.kind !== 'is' || (f.value.value !== 'null' && f.value.value !== 'not_null')) {
      throw new RestError(
        400,
        'PGRST120',
        `Bad operator on the '${f.field.name}' embedded resource`,
        'Only is null or not is null filters are allowed on embedded resources',
      );
    }
    embed.used();
    const isNull = (f.value.value === 'null') !== f.negate;
    return `${embed.sql} is ${isNull ? '' : 'not '}null`;
  }
  const column = fieldSql(scope.table, scope.alias, f.field, b);
  const meta = scope.table.columns.get(f.field.name);
  let sql: string;
  const v = f.value;
  if (v.kind === 'is') {
    sql = `${column} is ${v.value === 'not_null' ? 'not null' : v.value}`;
  } else if (v.kind === 'list') {
    sql = `${column} = any(${b.param(v.values)})`;
  } else if (v.kind === 'fts') {
    const fn = TSQUERY[f.op]!;
    const config = v.config === null ? '' : `${b.param(v.config, 'regconfig')}, `;
    const isVector = meta?.udt === 'tsvector' && f.field.path.length === 0;
    const vector = isVector ? column : `to_tsvector(${config}${column})`;
    sql = `${vector} @@ ${fn}(${config}${b.param(v.query)})`;
  } else {
    const op = BINARY[f.op]!;
    let value = v.value;
    // `ov.(a,b)` on an array column means the array literal `{a,b}`.
    if (f.op === 'ov' && meta?.isArray && value.startsWith('(') && value.endsWith(')'))
      value = `{${value.slice(1, -1)}}`;
    if (f.quantifier) sql = `${column} ${op} ${f.quantifier}(${b.param(value)})`;
    else sql = `${column} ${op} ${b.param(value)}`;
  }
  return f.negate ? `not (${sql})` : sql;
}

/** One condition (a filter or an and/or tree) as SQL. */
export function conditionSql(c: Condition, scope: FilterScope, b: SqlBuilder): string {
  if (c.kind === 'filter') return filterSql(c, scope, b);
  const parts = c.children.map((child) => `(${conditionSql(child, scope, b)})`);
  const joined = parts.join(c.op === 'and' ? ' and ' : ' or ');
  return c.negate ? `not (${joined})` : joined;
}
