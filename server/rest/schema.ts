import type pg from 'pg';

/** What the schema cache knows about a column. */
export interface Column {
  name: string;
  /** format_type(), e.g. `integer`, `text[]`, `timestamp with time zone`. */
  type: string;
  /** The base type's name (typname), e.g. `int4`, `_text`, `tsvector`. */
  udt: string;
  isArray: boolean;
  isRange: boolean;
  nullable: boolean;
  hasDefault: boolean;
  /** The default expression as PostgreSQL prints it (catalog text, never user input). */
  defaultExpr: string | null;
}

export interface Table {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  columns: Map<string, Column>;
  /** Column names in their table order. */
  columnOrder: string[];
  primaryKey: string[];
  /** Functions taking this table's row type (PostgREST's computed fields and relationships), by name. */
  computed: Map<string, DbFunction[]>;
}

export interface ForeignKey {
  name: string;
  schema: string;
  table: string;
  columns: string[];
  foreignSchema: string;
  foreignTable: string;
  foreignColumns: string[];
  /** Copied from a base table onto a view that exposes its columns. */
  viaView?: boolean;
}

export interface FunctionParam {
  name: string;
  type: string;
  hasDefault: boolean;
  variadic: boolean;
}

export interface DbFunction {
  schema: string;
  name: string;
  oid: number;
  params: FunctionParam[];
  returnType: string;
  returnsSet: boolean;
  /** `void`, a scalar, or rows with these columns (composite or RETURNS TABLE). */
  returnKind: 'void' | 'scalar' | 'composite';
  returnColumns: string[];
  /** The relation behind a composite return type, when it is a table or view we know. */
  returnTable: string | null;
  volatility: 'immutable' | 'stable' | 'volatile';
  /** `ROWS n` of a set-returning function: `ROWS 1` makes a computed relationship to-one. */
  rows: number;
  /** The table or view whose row type the first parameter takes, if any. */
  argTable: string | null;
}

export interface SchemaCache {
  /** Bumps on every load: part of the plan cache key. */
  version: number;
  schemas: readonly string[];
  tables: Map<string, Table>;
  foreignKeys: ForeignKey[];
  functions: Map<string, DbFunction[]>;
  /** Type names a `::cast` may use, mapped to their qualified, quotable form. */
  types: Map<string, { schema: string; name: string }>;
  /** `alter role ... set statement_timeout` of the request roles, applied per request as PostgREST 12 does. */
  roleTimeouts: Map<string, string>;
  /** PostgREST's in-database `pgrst.db_plan_enabled` (on the authenticator role): EXPLAIN through Accept. */
  planEnabled: boolean;
}

export function tableKey(schema: string, name: string): string {
  return `${schema}\u0000${name}`;
}

const TABLES_SQL = `
select n.nspname as schema, c.relname as name, c.relkind::text as kind,
  coalesce((select array_agg(a.attname::text order by array_position(i.indkey::int2[], a.attnum))
     from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
     where i.indrelid = c.oid and i.indisprimary), '{}') as pk
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where n.nspname = any($1) and c.relkind in ('r','v','m','f','p')`;

const COLUMNS_SQL = `
select n.nspname as schema, c.relname as table, a.attname as name,
  format_type(a.atttypid, a.atttypmod) as type,
  coalesce(bt.typname, t.typname) as udt,
  (coalesce(bt.typcategory, t.typcategory) = 'A') as is_array,
  (coalesce(bt.typtype, t.typtype) = 'r') as is_range,
  not a.attnotnull as nullable,
  (a.atthasdef or a.attidentity <> '' or a.attgenerated <> '') as has_default,
  pg_get_expr(d.adbin, d.adrelid) as default_expr
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where n.nspname = any($1) and c.relkind in ('r','v','m','f','p') and a.attnum > 0 and not a.attisdropped
order by n.nspname, c.relname, a.attnum`;

const FKS_SQL = `
select con.conname as name, n.nspname as schema, c.relname as table,
  array(select a.attname::text from unnest(con.conkey) with ordinality k(attnum, i)
        join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum order by k.i) as columns,
  fn.nspname as foreign_schema, fc.relname as foreign_table,
  array(select a.attname::text from unnest(con.confkey) with ordinality k(attnum, i)
        join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum order by k.i) as foreign_columns
from pg_constraint con
join pg_class c on c.oid = con.conrelid join pg_namespace n on n.oid = c.relnamespace
join pg_class fc on fc.oid = con.confrelid join pg_namespace fn on fn.oid = fc.relnamespace
where con.contype = 'f' and n.nspname = any($1) and fn.nspname = any($1)
order by con.conname`;

const FUNCTIONS_SQL = `
select n.nspname as schema, p.proname as name, p.oid::int as oid,
  p.proretset as returns_set, p.provolatile::text as volatility, p.pronargdefaults as n_defaults,
  format_type(p.prorettype, null) as return_type, rt.typtype::text as return_typtype,
  rt.typrelid::int as return_relid, rc.relname as return_rel, rn.nspname as return_rel_schema,
  coalesce(p.proargnames, '{}') as arg_names,
  coalesce(p.proargmodes::text[], '{}') as arg_modes,
  array(select format_type(t, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as arg_types,
  p.pronargs as n_in, p.prorows::float8 as prorows,
  (select an.nspname || '.' || ac.relname from pg_type at join pg_class ac on ac.oid = at.typrelid
     join pg_namespace an on an.oid = ac.relnamespace where p.pronargs > 0 and at.oid = p.proargtypes[0]) as arg_rel,
  coalesce((select array_agg(a.attname::text order by a.attnum) from pg_attribute a
    where a.attrelid = rt.typrelid and a.attnum > 0 and not a.attisdropped), '{}') as composite_columns
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type rt on rt.oid = p.prorettype
left join pg_class rc on rc.oid = rt.typrelid
left join pg_namespace rn on rn.oid = rc.relnamespace
where n.nspname = any($1) and p.prokind = 'f'`;

const TYPES_SQL = `
select n.nspname as schema, t.typname as name from pg_type t join pg_namespace n on n.oid = t.typnamespace
where (n.nspname = 'pg_catalog' or n.nspname = any($1)) and t.typtype in ('b','e','d','r','m','c')
  and t.typname not like '\\_%' and t.typname not like 'pg\\_%'`;

/** SQL's spelled-out type names, as casts in a select may use them. */
const TYPE_ALIASES: Record<string, string> = {
  integer: 'int4',
  int: 'int4',
  bigint: 'int8',
  smallint: 'int2',
  boolean: 'bool',
  real: 'float4',
  'double precision': 'float8',
  'character varying': 'varchar',
  character: 'bpchar',
  char: 'bpchar',
  decimal: 'numeric',
  'timestamp with time zone': 'timestamptz',
  'timestamp without time zone': 'timestamp',
  'time with time zone': 'timetz',
  'time without time zone': 'time',
};

const ROLE_SETTINGS_SQL = `
select r.rolname as role, substr(c, length('statement_timeout=') + 1) as timeout
from pg_db_role_setting s
join pg_roles r on r.oid = s.setrole
cross join lateral unnest(s.setconfig) c
where s.setdatabase in (0, (select oid from pg_database where datname = current_database()))
  and r.rolname in ('anon', 'authenticated', 'service_role') and c like 'statement\\_timeout=%'
order by s.setdatabase`;

const PLAN_SETTING_SQL = `
select exists (select 1 from pg_db_role_setting s join pg_roles r on r.oid = s.setrole cross join lateral unnest(s.setconfig) c
  where r.rolname = 'authenticator' and c = 'pgrst.db_plan_enabled=true') as enabled`;

interface FunctionRow {
  schema: string;
  name: string;
  oid: number;
  returns_set: boolean;
  volatility: string;
  n_defaults: number;
  return_type: string;
  return_typtype: string;
  return_relid: number;
  return_rel: string | null;
  return_rel_schema: string | null;
  arg_names: string[];
  arg_modes: string[];
  arg_types: string[];
  n_in: number;
  prorows: number;
  arg_rel: string | null;
  composite_columns: string[];
}

function toFunction(row: FunctionRow, schemas: readonly string[]): DbFunction {
  const modes = row.arg_modes.length > 0 ? row.arg_modes : row.arg_types.map(() => 'i');
  const inputs: FunctionParam[] = [];
  const tableColumns: string[] = [];
  modes.forEach((mode, i) => {
    const name = row.arg_names[i] ?? '';
    const type = row.arg_types[i] ?? 'unknown';
    if (mode === 'i' || mode === 'b' || mode === 'v')
      inputs.push({ name, type, hasDefault: false, variadic: mode === 'v' });
    if (mode === 't' || mode === 'o' || mode === 'b') tableColumns.push(name);
  });
  // The last pronargdefaults input parameters have defaults.
  for (let i = inputs.length - row.n_defaults; i < inputs.length; i++) if (inputs[i]) inputs[i]!.hasDefault = true;
  let returnKind: DbFunction['returnKind'] = 'scalar';
  let returnColumns: string[] = [];
  if (row.return_type === 'void') returnKind = 'void';
  else if (row.return_typtype === 'c') {
    returnKind = 'composite';
    returnColumns = row.composite_columns;
  } else if (row.return_type === 'record' && tableColumns.length > 0) {
    returnKind = 'composite';
    returnColumns = tableColumns;
  }
  const returnTable =
    row.return_rel && row.return_rel_schema && schemas.includes(row.return_rel_schema)
      ? tableKey(row.return_rel_schema, row.return_rel)
      : null;
  return {
    schema: row.schema,
    name: row.name,
    oid: row.oid,
    params: inputs,
    returnType: row.return_type,
    returnsSet: row.returns_set,
    returnKind,
    returnColumns,
    returnTable,
    volatility: row.volatility === 'i' ? 'immutable' : row.volatility === 's' ? 'stable' : 'volatile',
    rows: row.prorows,
    argTable: row.arg_rel
      ? tableKey(row.arg_rel.slice(0, row.arg_rel.indexOf('.')), row.arg_rel.slice(row.arg_rel.indexOf('.') + 1))
      : null,
  };
}

let versions = 0;

/** Reads tables, views, columns, keys, foreign keys and functions of the exposed schemas. */
export async function loadSchemaCache(db: pg.Pool | pg.Client, schemas: readonly string[]): Promise<SchemaCache> {
  const arg = [schemas as string[]];
  const [tables, columns, fks, fns, types, roles, plan] = await Promise.all([
    db.query<{ schema: string; name: string; kind: string; pk: string[] }>(TABLES_SQL, arg),
    db.query<{
      schema: string;
      table: string;
      name: string;
      type: string;
      udt: string;
      is_array: boolean;
      is_range: boolean;
      nullable: boolean;
      has_default: boolean;
      default_expr: string | null;
    }>(COLUMNS_SQL, arg),
    db.query<{
      name: string;
      schema: string;
      table: string;
      columns: string[];
      foreign_schema: string;
      foreign_table: string;
      foreign_columns: string[];
    }>(FKS_SQL, arg),
    db.query<FunctionRow>(FUNCTIONS_SQL, arg),
    db.query<{ schema: string; name: string }>(TYPES_SQL, arg),
    db.query<{ role: string; timeout: string }>(ROLE_SETTINGS_SQL),
    db.query<{ enabled: boolean }>(PLAN_SETTING_SQL),
  ]);
  const cache: SchemaCache = {
    version: ++versions,
    schemas,
    tables: new Map(),
    foreignKeys: [],
    functions: new Map(),
    types: new Map(),
    roleTimeouts: new Map(),
    planEnabled: plan.rows[0]?.enabled === true,
  };
  // Database-specific settings come last and win over cluster-wide ones.
  for (const r of roles.rows) cache.roleTimeouts.set(r.role, r.timeout);
  for (const t of types.rows) if (!cache.types.has(t.name) || t.schema !== 'pg_catalog') cache.types.set(t.name, t);
  for (const [alias, name] of Object.entries(TYPE_ALIASES)) {
    const known = cache.types.get(name);
    if (known) cache.types.set(alias, known);
  }
  for (const t of tables.rows) {
    cache.tables.set(tableKey(t.schema, t.name), {
      schema: t.schema,
      name: t.name,
      kind: t.kind === 'r' || t.kind === 'p' || t.kind === 'f' ? 'table' : 'view',
      columns: new Map(),
      columnOrder: [],
      primaryKey: t.pk,
      computed: new Map(),
    });
  }
  for (const c of columns.rows) {
    const table = cache.tables.get(tableKey(c.schema, c.table));
    if (!table) continue;
    table.columns.set(c.name, {
      name: c.name,
      type: c.type,
      udt: c.udt,
      isArray: c.is_array,
      isRange: c.is_range,
      nullable: c.nullable,
      hasDefault: c.has_default,
      defaultExpr: c.default_expr,
    });
    table.columnOrder.push(c.name);
  }
  cache.foreignKeys = fks.rows.map((f) => ({
    name: f.name,
    schema: f.schema,
    table: f.table,
    columns: f.columns,
    foreignSchema: f.foreign_schema,
    foreignTable: f.foreign_table,
    foreignColumns: f.foreign_columns,
  }));
  for (const row of fns.rows) {
    const fn = toFunction(row, schemas);
    const key = tableKey(fn.schema, fn.name);
    const list = cache.functions.get(key) ?? [];
    list.push(fn);
    cache.functions.set(key, list);
    // One parameter of a table's row type: a computed field (scalar) or relationship (rows).
    const owner =
      fn.argTable && fn.params.length >= 1 && fn.params.slice(1).every((p) => p.hasDefault)
        ? cache.tables.get(fn.argTable)
        : undefined;
    if (owner) owner.computed.set(fn.name, [...(owner.computed.get(fn.name) ?? []), fn]);
  }
  return cache;
}
