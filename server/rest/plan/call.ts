import type { ParsedQuery } from '../ast.ts';
import { RestError } from '../errors.ts';
import { tableKey, type DbFunction, type SchemaCache, type Table } from '../schema.ts';
import { readSql, resolveRead } from './read.ts';
import { ident, qualified, SqlBuilder } from './sql.ts';
import { aggregateStatement } from './statement.ts';

export interface CallPlan {
  sql: string;
  values: unknown[];
  fn: DbFunction;
  /** The result is one value or object, not an array. */
  single: boolean;
  void: boolean;
}

const JSON_TYPES = new Set(['json', 'jsonb']);

function signature(fn: DbFunction): string {
  return `${fn.schema}.${fn.name}(${fn.params.map((p) => `${p.name} => ${p.type}`).join(', ')})`;
}

/** Types a function's single unnamed parameter may have and still be callable (PostgREST). */
const UNNAMED_TYPES = new Set(['json', 'jsonb', 'text', 'xml', 'bytea']);

function singleUnnamed(fn: DbFunction): boolean {
  return fn.params.length === 1 && fn.params[0]!.name === '';
}

/** What PostgREST's schema cache holds: functions whose parameters all have names, or one unnamed json/jsonb/text/xml/bytea. */
function callable(fn: DbFunction): boolean {
  if (singleUnnamed(fn)) return UNNAMED_TYPES.has(fn.params[0]!.type);
  return fn.params.every((p) => p.name !== '');
}

/** A function taking the whole body as one argument: a single unnamed one, or a json one with params=single-object. */
function takesSingleObject(fn: DbFunction, singleObject: boolean): boolean {
  if (singleObject) return fn.params.length === 1 && JSON_TYPES.has(fn.params[0]!.type);
  return singleUnnamed(fn) && callable(fn);
}

/** Bigram similarity of two names (Dice), for "Perhaps you meant" hints. */
function similarity(a: string, b: string): number {
  const grams = (s: string) => new Set(Array.from({ length: Math.max(0, s.length - 1) }, (_, i) => s.slice(i, i + 2)));
  const x = grams(a);
  const y = grams(b);
  if (x.size + y.size === 0) return 0;
  let shared = 0;
  for (const g of x) if (y.has(g)) shared++;
  return (2 * shared) / (x.size + y.size);
}

function nearestFunction(cache: SchemaCache, schema: string, name: string): string | null {
  let best: string | null = null;
  let score = 0.75;
  for (const list of cache.functions.values()) {
    const fn = list.find(callable);
    if (!fn || fn.schema !== schema || fn.name === name) continue;
    const s = similarity(fn.name, name);
    if (s > score) [best, score] = [fn.name, s];
  }
  return best;
}

/** Overload resolution by argument names, as PostgREST does (PGRST202 / PGRST203). */
export function chooseFunction(
  cache: SchemaCache,
  schema: string,
  name: string,
  argNames: string[],
  singleObject: boolean,
  hasBody: boolean,
): DbFunction {
  const overloads = (cache.functions.get(tableKey(schema, name)) ?? []).filter(callable);
  const given = new Set(argNames);
  const matches = overloads.filter((fn) => {
    // A json/jsonb one takes any body; a text, xml or bytea one only `{"": value}`.
    const unnamedText = argNames.length === 1 && argNames[0] === '';
    if (
      hasBody &&
      takesSingleObject(fn, singleObject) &&
      (singleObject || JSON_TYPES.has(fn.params[0]!.type) || unnamedText)
    )
      return true;
    if (singleObject) return false;
    const names = new Set(fn.params.map((p) => p.name));
    return argNames.every((a) => names.has(a)) && fn.params.every((p) => p.hasDefault || given.has(p.name));
  });
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    // A function that takes exactly the given named arguments beats ones with extra defaulted ones.
    const exact = matches.filter((fn) => fn.params.length === argNames.length);
    if (exact.length === 1 && !matches.some(singleUnnamed)) return exact[0]!;
    throw new RestError(
      300,
      'PGRST203',
      `Could not choose the best candidate function between: ${[...matches]
        .sort((x, y) => x.params.length - y.params.length || signature(x).localeCompare(signature(y)))
        .map(signature)
        .join(', ')}`,
      null,
      'Try renaming the parameters or the function itself in the database so function overloading can be resolved',
    );
  }
  const listed = argNames.join(', ');
  const details =
    argNames.length === 0 ? ' without parameters' : ` with parameter${argNames.length > 1 ? 's' : ''} ${listed}`;
  let hint: string | null = null;
  if (overloads.length > 0) {
    hint = `Perhaps you meant to call the function ${schema}.${name}(${[...new Set(overloads.flatMap((f) => f.params.map((p) => p.name)))].sort().join(', ')})`;
  } else {
    const near = nearestFunction(cache, schema, name);
    if (near) hint = `Perhaps you meant to call the function ${schema}.${near}`;
  }
  throw new RestError(
    404,
    'PGRST202',
    `Could not find the function ${schema}.${name}${argNames.length === 0 ? ' without parameters' : `(${listed})`} in the schema cache`,
    `Searched for the function ${schema}.${name}${details}${hasBody ? ' or with a single unnamed json/jsonb parameter' : ''}, but no matches were found in the schema cache.`,
    hint,
  );
}

/** Builds the call: arguments from one JSON object through json_to_record, then filters and the shape. */
export function planCall(
  cache: SchemaCache,
  fn: DbFunction,
  args: Record<string, unknown>,
  rawBody: string | null,
  singleObject: boolean,
  query: ParsedQuery,
  page: { limit: number | null; offset: number | null },
  countWanted: boolean,
): CallPlan {
  const b = new SqlBuilder();
  let from: string;
  let call: string;
  if (takesSingleObject(fn, singleObject) && (singleObject || rawBody !== null)) {
    from = '';
    call = `${qualified(fn.schema, fn.name)}(${b.param(rawBody ?? '{}', fn.params[0]!.type)})`;
  } else {
    const used = fn.params.filter((p) => p.name in args);
    const record = used.map((p) => `${ident(p.name)} ${p.type}`).join(', ');
    from =
      used.length > 0 ? ` from json_to_record(${b.param(JSON.stringify(args), 'json')}) as pgrst_args(${record})` : '';
    const named = used.map((p) => `${p.variadic ? 'variadic ' : ''}${ident(p.name)} := pgrst_args.${ident(p.name)}`);
    call = `${qualified(fn.schema, fn.name)}(${named.join(', ')})`;
  }
  if (fn.returnKind === 'void') return { sql: `select ${call}${from}`, values: b.values, fn, single: true, void: true };
  if (fn.returnKind === 'scalar' && !fn.returnsSet) {
    return {
      sql: `select null::bigint as total, 1 as page, to_json(${call})::text as body, nullif(current_setting('response.headers', true), '') as headers, nullif(current_setting('response.status', true), '') as status${from}`,
      values: b.values,
      fn,
      single: true,
      void: false,
    };
  }
  // Rows: treat the call as a table so select, filters, order and limit apply.
  const columns = fn.returnKind === 'composite' ? fn.returnColumns : [fn.name];
  const known: Table | undefined = fn.returnTable ? cache.tables.get(fn.returnTable) : undefined;
  const table: Table = {
    schema: fn.schema,
    name: fn.name,
    kind: 'view',
    columns:
      known?.columns ??
      new Map(
        columns.map((c) => [
          c,
          {
            name: c,
            type: 'unknown',
            udt: '',
            isArray: false,
            isRange: false,
            nullable: true,
            hasDefault: false,
            defaultExpr: null,
          },
        ]),
      ),
    columnOrder: columns,
    primaryKey: known?.primaryKey ?? [],
    computed: known?.computed ?? new Map<string, DbFunction[]>(),
  };
  // Embedding from a function returning a known table follows that table's foreign keys.
  const embedFrom = known ? { ...table, schema: known.schema, name: known.name } : table;
  const root = resolveRead(cache, embedFrom, query.select, query.levels, fn.name);
  const source = `(select pgrst_call.* from ${from ? from.slice(6) + ', lateral ' : ''}${call} as pgrst_call${fn.returnKind === 'scalar' ? `(${ident(fn.name)})` : ''})`;
  const read = readSql(cache, { ...root, table: { ...root.table, columns: table.columns } }, b, page, source, true);
  const single = !fn.returnsSet;
  const scalarSet =
    fn.returnKind === 'scalar' &&
    (query.select === null || (query.select.length === 1 && query.select[0]!.kind === 'star'));
  const sql = aggregateStatement(read.rows, countWanted ? read.count : null, '', scalarSet ? ident(fn.name) : null);
  return { sql, values: b.values, fn, single, void: false };
}
