/**
 * `postgres_changes` filters: the PostgREST-style `column=op.value` strings clients send,
 * parsed the way hosted realtime parses them (same operators, `not.` negation, commas
 * joining filters with AND, `in.(a,b)`, double-quoted values) and turned into SQL that
 * compares with the column's own type semantics.
 */

export const FILTER_OPERATORS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'like',
  'ilike',
  'is',
  'match',
  'imatch',
  'isdistinct',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export interface ChangeFilter {
  column: string;
  op: FilterOperator;
  /** The right-hand side; for `in` a PostgreSQL array literal `{a,b}`. */
  value: string;
  negate: boolean;
}

export type ParseResult = { ok: true; filters: ChangeFilter[] } | { ok: false; error: string };

function isOperator(op: string): op is FilterOperator {
  return (FILTER_OPERATORS as readonly string[]).includes(op);
}

/** An Elixir-`inspect`-like rendering of strings, which hosted's messages embed. */
export function inspectList(items: string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(', ')}]`;
}

/** Splits on commas outside parentheses and double quotes. */
function splitTopLevel(filter: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let prev = '';
  let current = '';
  for (let i = 0; i < filter.length; i++) {
    const ch = filter[i]!;
    if (quoted) {
      if (ch === '\\' && i + 1 < filter.length) {
        current += ch + filter[i + 1]!;
        i++;
        prev = filter[i]!;
        continue;
      }
      if (ch === '"') quoted = false;
      current += ch;
    } else if (ch === '"' && (prev === '.' || prev === '(' || prev === ',')) {
      quoted = true;
      current += ch;
    } else if (ch === '(') {
      depth++;
      current += ch;
    } else if (ch === ')') {
      depth = Math.max(0, depth - 1);
      current += ch;
    } else if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
      prev = '';
      continue;
    } else {
      current += ch;
    }
    prev = ch;
  }
  parts.push(current);
  return parts;
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\' && i + 1 < value.length) {
      out += value[++i]!;
    } else if (ch === '"') {
      return i === value.length - 1 ? out : value;
    } else {
      out += ch;
    }
  }
  return value;
}

function parseSegment(segment: string): ChangeFilter | string {
  const trimmed = segment.trim();
  if (trimmed === '') return 'filter must not contain empty segments (check for extra commas)';
  const eq = trimmed.indexOf('=');
  if (eq < 0) return inspectList([trimmed]);
  const column = trimmed.slice(0, eq);
  let rest = trimmed.slice(eq + 1);
  const negate = rest.startsWith('not.');
  if (negate) rest = rest.slice(4);
  const dot = rest.indexOf('.');
  if (dot < 0) return inspectList([rest]);
  const op = rest.slice(0, dot);
  const value = rest.slice(dot + 1);
  if (!isOperator(op)) return inspectList([op, value]);
  if (op === 'in') {
    if (value.length < 2 || !value.startsWith('(') || !value.endsWith(')')) {
      return '`in` filter value must be wrapped by parentheses';
    }
    return { column, op, value: `{${value.slice(1, -1)}}`, negate };
  }
  return { column, op, value: unquote(value), negate };
}

/** Parses a binding's filter; absent or blank means no filter. */
export function parseFilter(filter: string | undefined | null): ParseResult {
  if (filter === undefined || filter === null || filter.trim() === '') return { ok: true, filters: [] };
  const filters: ChangeFilter[] = [];
  for (const segment of splitTopLevel(filter.trim())) {
    const parsed = parseSegment(segment);
    if (typeof parsed === 'string') return { ok: false, error: `Error parsing \`filter\` params: ${parsed}` };
    filters.push(parsed);
  }
  return { ok: true, filters };
}

const SYMBOLS: Partial<Record<FilterOperator, string>> = {
  eq: '=',
  neq: '<>',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
  like: '~~',
  ilike: '~~*',
  match: '~',
  imatch: '~*',
};

/**
 * SQL for one filter over two bound parameters, the column's text value and the filter
 * value, both cast to the column type: a NULL outcome counts as "no match", like hosted.
 */
export function filterSql(filter: ChangeFilter, castName: string, left: string, right: string): string {
  const lhs = `${left}::${castName}`;
  let expr: string;
  if (filter.op === 'in') expr = `${lhs} = any(${right}::${castName}[])`;
  else if (filter.op === 'is') {
    const keyword = { null: 'null', true: 'true', false: 'false', unknown: 'unknown' }[filter.value] ?? 'null';
    expr = `${lhs} is ${keyword}`;
  } else if (filter.op === 'isdistinct') expr = `${lhs} is distinct from ${right}::${castName}`;
  else expr = `${lhs} ${SYMBOLS[filter.op] ?? '='} ${right}::${castName}`;
  return filter.negate ? `coalesce(not (${expr}), false)` : `coalesce(${expr}, false)`;
}

/** Whether a filter's SQL uses the right-hand parameter. */
export function filterUsesValue(filter: ChangeFilter): boolean {
  return filter.op !== 'is';
}

/**
 * A cheap guess, in JavaScript, at whether a filter holds for a row's text values: true
 * only for a plain `eq` whose value equals the column's text (ignoring case, as uuids
 * compare). It never decides delivery, which always goes by the SQL outcome; it only
 * picks whose RLS check the router may start before that outcome is known.
 */
export function filterLikelyHolds(filter: ChangeFilter, row: Readonly<Record<string, string | null>> | null): boolean {
  if (filter.op !== 'eq' || filter.negate || !row) return false;
  const value = row[filter.column];
  if (value === undefined || value === null) return false;
  return value === filter.value || value.toLowerCase() === filter.value.toLowerCase();
}

/** A stable key for a filter, so equal filters on one change are evaluated once. */
export function filterKey(filter: ChangeFilter): string {
  return JSON.stringify([filter.column, filter.op, filter.value, filter.negate]);
}
