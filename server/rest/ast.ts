/** The request as parsed from the query string and headers: no schema knowledge yet. */

export interface JsonStep {
  /** `->` keeps JSON, `->>` extracts text. */
  arrow: '->' | '->>';
  key: string;
}

/** A column, possibly followed by a JSON path: `data->a->>b`. */
export interface Field {
  name: string;
  path: JsonStep[];
}

export interface SelectColumn {
  kind: 'column';
  field: Field;
  alias: string | null;
  cast: string | null;
}

export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateFn = (typeof AGGREGATES)[number];

/** `count()`, `col.sum()`, `alias:col.max()::text`: one value per group of the other columns. */
export interface SelectAggregate {
  kind: 'aggregate';
  fn: AggregateFn;
  /** null for a bare `count()`. */
  field: Field | null;
  alias: string | null;
  /** Cast of the aggregate's result. */
  cast: string | null;
}

export interface SelectStar {
  kind: 'star';
}

export interface SelectEmbed {
  kind: 'embed';
  /** Table, foreign key constraint or column name that names the relationship. */
  name: string;
  alias: string | null;
  /** `name!hint`: a constraint, column or junction table name. */
  hint: string | null;
  join: 'inner' | 'left' | null;
  /** `...name(cols)`: the to-one embed's columns are merged into the parent object. */
  spread: boolean;
  select: SelectItem[];
}

export type SelectItem = SelectColumn | SelectStar | SelectEmbed | SelectAggregate;

export const OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
  'in',
  'is',
  'isdistinct',
  'cs',
  'cd',
  'ov',
  'sl',
  'sr',
  'nxl',
  'nxr',
  'adj',
  'fts',
  'plfts',
  'phfts',
  'wfts',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators that accept the `(any)` / `(all)` quantifier. */
export const QUANTIFIABLE: ReadonlySet<Operator> = new Set([
  'eq',
  'gt',
  'gte',
  'lt',
  'lte',
  'like',
  'ilike',
  'match',
  'imatch',
]);
export const FTS_OPERATORS: ReadonlySet<Operator> = new Set(['fts', 'plfts', 'phfts', 'wfts']);

export type IsValue = 'null' | 'not_null' | 'true' | 'false' | 'unknown';

export type FilterValue =
  | { kind: 'scalar'; value: string }
  | { kind: 'list'; values: string[] }
  | { kind: 'is'; value: IsValue }
  | { kind: 'fts'; config: string | null; query: string };

export interface Filter {
  kind: 'filter';
  field: Field;
  negate: boolean;
  op: Operator;
  quantifier: 'any' | 'all' | null;
  value: FilterValue;
}

export interface LogicTree {
  kind: 'logic';
  op: 'and' | 'or';
  negate: boolean;
  children: Condition[];
}

export type Condition = Filter | LogicTree;

export interface OrderTerm {
  /** `rel(col)`: order by a column of a to-one embed named `rel`. */
  relation: string | null;
  field: Field;
  direction: 'asc' | 'desc' | null;
  nulls: 'first' | 'last' | null;
}

/** Per-level modifiers, keyed by the embed path (`''` for the top level, `child.grandchild`). */
export interface LevelModifiers {
  conditions: Condition[];
  order: OrderTerm[] | null;
  limit: number | null;
  offset: number | null;
}

/** A query parameter that is not reserved: a filter, or an rpc argument on GET. */
export interface LooseParam {
  key: string;
  value: string;
}

export interface ParsedQuery {
  select: SelectItem[] | null;
  columns: string[] | null;
  onConflict: string[] | null;
  levels: Map<string, LevelModifiers>;
}
