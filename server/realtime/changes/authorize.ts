import type pg from 'pg';
import { withClaims, type RequestRole } from '../../postgres/pool.ts';
import type { RelationInfo, TextRow } from './decode.ts';
import { filterKey, filterSql, filterUsesValue, type ChangeFilter } from './filters.ts';
import { VISIBILITY_FUNCTION } from './sqlfns.ts';
import type { ChangeSubscriberIdentity } from './types.ts';

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string literal that reads the same whatever standard_conforming_strings says. */
export function quoteLiteral(value: string): string {
  const quoted = value.replace(/'/g, "''");
  return value.includes('\\') ? `E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

/** Facts about the changed table, read once per change as the backend. */
export interface TableFacts {
  /** False when the table is gone by the time the change is routed. */
  exists: boolean;
  rls: boolean;
  /** Columns each role may select (column privileges, as hosted trims payloads by them). */
  selectable: Map<RequestRole, Set<string>>;
  /** Outcome of each distinct filter against the change's row, by filterKey. */
  filters: Map<string, boolean>;
  /** The early row check's answer per identity (see EarlyCheck); null when not asked or it failed. */
  early: boolean[] | null;
}

/** A row check asked for in the same round trip as the facts, before they are known. */
export interface EarlyCheck {
  check: string;
  xid: number | null;
  identities: ChangeSubscriberIdentity[];
}

/**
 * The identities sorted by role (so the server plans the lookup once per role), the
 * arrays the visibility function takes, and how to map its answers back.
 */
function visibilityCall(identities: ChangeSubscriberIdentity[]) {
  const order = identities.map((_, i) => i).sort((a, b) => identities[a]!.role.localeCompare(identities[b]!.role));
  const sorted = order.map((i) => identities[i]!);
  return {
    roles: sorted.map((i) => i.role),
    claims: sorted.map((i) => JSON.stringify(i.claims)),
    answers(visible: unknown): boolean[] {
      const list = Array.isArray(visible) ? visible : [];
      const answer = identities.map(() => false);
      order.forEach((original, position) => (answer[original] = list[position] === true));
      return answer;
    },
  };
}

function castOf(relation: RelationInfo, column: string): string | undefined {
  return relation.columns.find((c) => c.name === column)?.type?.castName;
}

/**
 * Reads RLS status, per-role column privileges and every filter outcome in one query.
 * Filters compare the WAL value with the filter value, both cast to the column type,
 * so numbers compare as numbers, timestamps as instants, uuids as uuids. With `early`,
 * the same query also runs that row check (last, after everything else it selects, and
 * nothing else in it depends on the role the check switches to and back from), so a
 * change whose checks can be guessed costs one round trip.
 */
export async function readTableFacts(
  pool: pg.Pool,
  relation: RelationInfo,
  roles: RequestRole[],
  filters: ChangeFilter[],
  row: TextRow | null,
  early?: EarlyCheck,
): Promise<TableFacts> {
  const params: unknown[] = [relation.oid];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const selects = ['c.relrowsecurity as rls'];
  roles.forEach((role, i) => {
    selects.push(
      `array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
              and has_column_privilege(${param(role)}::name, c.oid, a.attnum, 'SELECT')) as r${i}`,
    );
  });
  const evaluable: { key: string; sql: string; filter: ChangeFilter }[] = [];
  const outcomes = new Map<string, boolean>();
  for (const filter of filters) {
    const key = filterKey(filter);
    if (outcomes.has(key) || evaluable.some((e) => e.key === key)) continue;
    const cast = castOf(relation, filter.column);
    // A filter on a column the row does not carry (not in the WAL) cannot match: fail closed.
    if (!cast || !row || !(filter.column in row)) {
      outcomes.set(key, false);
      continue;
    }
    evaluable.push({ key, filter, sql: '' });
  }
  const filterSelect = (e: { filter: ChangeFilter }, p: (v: unknown) => string): string => {
    const cast = castOf(relation, e.filter.column)!;
    const left = p(row?.[e.filter.column] ?? null);
    const right = filterUsesValue(e.filter) ? p(e.filter.value) : 'null';
    return filterSql(e.filter, cast, left, right);
  };
  const baseParams = params.length;
  evaluable.forEach((e, i) => selects.push(`${filterSelect(e, param)} as f${i}`));
  const call = early && early.identities.length > 0 ? visibilityCall(early.identities) : null;
  if (early && call) {
    selects.push(
      `${VISIBILITY_FUNCTION}(${param(early.check)}, ${param(early.xid)}, ${param(call.roles)}, ${param(call.claims)}) as visible`,
    );
  }
  const sql = (list: string[]) => `select ${list.join(', ')} from pg_class c where c.oid = $1::oid`;
  let first: Record<string, unknown> | undefined;
  let earlyAnswer: boolean[] | null = null;
  try {
    first = (await pool.query<Record<string, unknown>>(sql(selects), params)).rows[0];
    evaluable.forEach((e, i) => outcomes.set(e.key, first?.[`f${i}`] === true));
    if (call && first) earlyAnswer = call.answers(first.visible);
  } catch {
    // One filter failed to evaluate (e.g. a value that no longer casts), or a policy
    // raised in the early check: evaluate each filter alone so the others still work, let
    // the failing one match nothing, and leave the early answer out (the router checks
    // again, one identity at a time if need be).
    params.length = baseParams;
    first = (await pool.query<Record<string, unknown>>(sql(selects.slice(0, 1 + roles.length)), params)).rows[0];
    for (const e of evaluable) {
      const own: unknown[] = [relation.oid];
      const p = (value: unknown): string => {
        own.push(value);
        return `$${own.length}`;
      };
      try {
        const r = await pool.query<{ ok: boolean }>(sql([`${filterSelect(e, p)} as ok`]), own);
        outcomes.set(e.key, r.rows[0]?.ok === true);
      } catch {
        outcomes.set(e.key, false);
      }
    }
  }
  const selectable = new Map<RequestRole, Set<string>>();
  roles.forEach((role, i) => selectable.set(role, new Set((first?.[`r${i}`] as string[] | undefined) ?? [])));
  return { exists: first !== undefined, rls: first?.rls === true, selectable, filters: outcomes, early: earlyAnswer };
}

/** `select exists(... where pk = <values>)`: the row lookup each identity runs under RLS. */
export function rowCheckSql(relation: RelationInfo, row: TextRow): string | null {
  const conditions: string[] = [];
  for (const column of relation.primaryKey) {
    const value = row[column];
    const cast = castOf(relation, column);
    if (value === undefined || value === null || !cast) return null;
    conditions.push(`${quoteIdent(column)} = ${quoteLiteral(value)}::${cast}`);
  }
  if (conditions.length === 0) return null;
  return `select exists(select 1 from ${quoteIdent(relation.schema)}.${quoteIdent(relation.table)} where ${conditions.join(' and ')}) as visible`;
}

/**
 * Whether each identity may select the row under RLS. All identities go to the server in
 * one round trip (see sqlfns.ts), each checked under its own role and claims exactly as
 * withClaims would set them. If that call fails (say a policy raises for one set of
 * claims), each identity is asked again alone through withClaims, so one failure cannot
 * hide the change from the others.
 */
/** The batched check alone: null when the call fails (the caller decides what next). */
export async function batchRowVisibility(
  pool: pg.Pool,
  check: string,
  xid: number | null,
  identities: ChangeSubscriberIdentity[],
): Promise<boolean[] | null> {
  if (identities.length === 0) return [];
  const call = visibilityCall(identities);
  try {
    const result = await pool.query<{ visible: boolean[] }>(
      `select ${VISIBILITY_FUNCTION}($1, $2, $3, $4) as visible`,
      [check, xid, call.roles, call.claims],
    );
    return call.answers(result.rows[0]?.visible);
  } catch {
    return null;
  }
}

/**
 * Whether each identity may select the row under RLS. All identities go to the server in
 * one round trip (see sqlfns.ts), each checked under its own role and claims exactly as
 * withClaims would set them. If that call fails (say a policy raises for one set of
 * claims), each identity is asked again alone through withClaims, so one failure cannot
 * hide the change from the others.
 */
export async function checkRowVisibility(
  pool: pg.Pool,
  check: string,
  xid: number | null,
  identities: ChangeSubscriberIdentity[],
  log: (line: string) => void,
): Promise<boolean[]> {
  const batched = await batchRowVisibility(pool, check, xid, identities);
  if (batched) return batched;
  return Promise.all(
    identities.map((identity) =>
      withClaims(pool, { role: identity.role, claims: identity.claims }, async (c) => {
        const r = await c.query<{ visible: boolean }>(check);
        return r.rows[0]?.visible === true;
      }).catch((error: unknown) => {
        log(`[realtime] RLS check as ${identity.role} failed: ${String(error)}`);
        return false;
      }),
    ),
  );
}
