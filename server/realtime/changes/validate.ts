import type pg from 'pg';
import { inspectList, parseFilter, type ChangeFilter } from './filters.ts';
import { PUBLICATION } from './replication.ts';
import type { ChangeBinding, ChangeSubscriberIdentity } from './types.ts';

/** SQLSTATE -> condition name, for the few errors a filter value can raise. */
const CONDITIONS: Record<string, string> = {
  P0001: 'raise_exception',
  '22P02': 'invalid_text_representation',
  '22007': 'invalid_datetime_format',
  '22008': 'datetime_field_overflow',
  '22003': 'numeric_value_out_of_range',
  '22001': 'string_data_right_truncation',
  '2201B': 'invalid_regular_expression',
  '22023': 'invalid_parameter_value',
  '42804': 'datatype_mismatch',
  '42883': 'undefined_function',
};

/** A filter problem worded as PostgreSQL (through Postgrex) reports it to hosted realtime. */
class FilterProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
  render(): string {
    return `ERROR ${this.code} (${CONDITIONS[this.code] ?? 'error'}) ${this.message}`;
  }
}

function raise(message: string): never {
  throw new FilterProblem('P0001', message);
}

/** Hosted's rendering of the subscription parameters inside its error messages. */
function paramsToLog(binding: ChangeBinding, table: string, filters: ChangeFilter[]): string {
  const rendered = filters.map(
    (f) => `{${JSON.stringify(f.column)}, ${JSON.stringify(f.op)}, ${JSON.stringify(f.value)}, ${f.negate}}`,
  );
  return `[event: ${binding.event}, schema: ${binding.schema}, table: ${table}, filters: [${rendered.join(', ')}], select: nil]`;
}

interface ColumnRow {
  attname: string;
  cast_name: string;
  readable: boolean;
}

async function checkFilter(pool: pg.Pool, tableOid: number, role: string, filter: ChangeFilter): Promise<void> {
  const columns = await pool.query<ColumnRow>(
    `select a.attname::text as attname, format_type(a.atttypid, null) as cast_name,
            has_column_privilege($2::name, a.attrelid, a.attnum, 'SELECT') as readable
       from pg_attribute a where a.attrelid = $1::oid and a.attname = $3 and a.attnum > 0 and not a.attisdropped`,
    [tableOid, role, filter.column],
  );
  const column = columns.rows[0];
  if (!column?.readable) raise(`invalid column for filter ${filter.column}`);
  const type = column.cast_name;
  try {
    if (filter.op === 'in') {
      const r = await pool.query<{ n: number }>(`select coalesce(cardinality($1::${type}[]), 0) as n`, [filter.value]);
      if ((r.rows[0]?.n ?? 0) > 100) raise('too many values for `in` filter. Maximum 100');
    } else if (filter.op === 'is') {
      if (!['null', 'true', 'false', 'unknown'].includes(filter.value)) {
        raise('invalid value for is filter: must be null, true, false, or unknown');
      }
      if (filter.value !== 'null' && type !== 'boolean')
        raise(`is ${filter.value} filter requires a boolean column, got ${type}`);
    } else if (['like', 'ilike', 'match', 'imatch'].includes(filter.op)) {
      const operator = { like: '~~', ilike: '~~*', match: '~', imatch: '~*' }[filter.op as 'like'];
      const r = await pool.query(
        `select 1 from pg_operator where oprname = $1 and oprleft = $2::regtype and oprresult = 'boolean'::regtype`,
        [operator, type],
      );
      if (!r.rowCount) raise(`operator ${filter.op} requires a text-compatible column type, got ${type}`);
      if (filter.op === 'match' || filter.op === 'imatch') {
        try {
          await pool.query(`select '' ~ $1`, [filter.value]);
        } catch (error) {
          raise(`invalid regular expression for ${filter.op} filter: ${(error as Error).message}`);
        }
      }
    } else {
      await pool.query(`select $1::${type}`, [filter.value]);
    }
  } catch (error) {
    if (error instanceof FilterProblem) throw error;
    const pgError = error as { code?: string; message?: string };
    throw new FilterProblem(pgError.code ?? 'XX000', pgError.message ?? String(error));
  }
}

/**
 * Checks bindings before a join, with hosted realtime's messages: a filter that does not
 * parse; a schema/table that is not in the publication or that the subscriber's role
 * cannot read; a filter column the role cannot read; a filter value that is not of the
 * column's type. Returns the first problem, or null.
 */
export async function validateBindings(
  pool: pg.Pool,
  bindings: ChangeBinding[],
  identity: ChangeSubscriberIdentity,
): Promise<string | null> {
  for (const binding of bindings) {
    const parsed = parseFilter(binding.filter);
    if (!parsed.ok) return parsed.error;
    if (typeof binding.schema !== 'string' || binding.schema === '') {
      return `No subscription params provided. Please provide at least a \`schema\` or \`table\` to subscribe to: ${inspectList([])}`;
    }
    const table = binding.table === undefined || binding.table === null || binding.table === '' ? '*' : binding.table;
    const tables = await pool.query<{ oid: number }>(
      `select c.oid::int as oid
         from pg_publication_tables pt
         join pg_namespace n on n.nspname = pt.schemaname
         join pg_class c on c.relnamespace = n.oid and c.relname = pt.tablename
        where pt.pubname = $1 and ($2 = '*' or pt.schemaname = $2) and ($3 = '*' or pt.tablename = $3)
          and has_any_column_privilege($4::name, c.oid, 'SELECT')`,
      [PUBLICATION, binding.schema, table, identity.role],
    );
    const params = paramsToLog(binding, table, parsed.filters);
    if (tables.rowCount === 0) {
      return `Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: ${params}`;
    }
    try {
      for (const { oid } of tables.rows) {
        for (const filter of parsed.filters) await checkFilter(pool, oid, identity.role, filter);
      }
    } catch (error) {
      const detail = error instanceof FilterProblem ? error.render() : String(error);
      return `Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: ${params}. Exception: ${detail}`;
    }
  }
  return null;
}
