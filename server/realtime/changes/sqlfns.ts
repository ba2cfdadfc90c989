import type pg from 'pg';
import { asAdmin } from '../../postgres/pool.ts';

/** Versioned so a changed body gets a new name instead of racing a replace. */
export const VISIBILITY_FUNCTION = 'realtime.chartroom_rows_visible_v4';

/**
 * The per-change RLS check, server side: for each identity, in the caller's transaction,
 * switch to its role with request.jwt.claims (and the other request.* settings) set as
 * withClaims sets them, run the row lookup, switch back. One round trip for all the
 * identities of a change instead of four statements each from the client (hosted's
 * apply_rls works the same way).
 *
 * Logical decoding can hand us a commit a moment before the committing backend leaves
 * the proc array, when a fresh snapshot would still miss the row; the function first
 * waits (briefly, bounded) until the transaction is no longer in progress.
 */
const DEFINITION = `
create or replace function ${VISIBILITY_FUNCTION}(check_sql text, xid bigint, roles text[], claims text[])
returns boolean[] language plpgsql volatile as $fn$
declare
  result boolean[] := '{}';
  visible boolean;
  tries int := 0;
  snap pg_snapshot;
  xmax8 bigint;
  full_xid bigint;
begin
  -- Wait until the change's transaction counts as finished for a fresh snapshot. The
  -- 32-bit xid from pgoutput gets the epoch of the snapshot's xmax.
  while xid is not null and xid <> 0 and tries < 2000 loop
    snap := pg_current_snapshot();
    xmax8 := pg_snapshot_xmax(snap)::text::bigint;
    full_xid := ((xmax8 >> 32) << 32) | xid;
    if full_xid > xmax8 then
      full_xid := full_xid - 4294967296;
    end if;
    exit when full_xid < 3 or pg_visible_in_snapshot(full_xid::text::xid8, snap);
    perform pg_sleep(0.0005);
    tries := tries + 1;
  end loop;
  -- One plan per role (RLS is planned for the role; the claims are read at run time),
  -- then one execution per identity of that role.
  if exists (select 1 from pg_prepared_statements where name = 'chartroom_rls_check') then
    deallocate chartroom_rls_check;
  end if;
  perform set_config('request.method', '', true),
          set_config('request.path', '', true),
          set_config('request.headers', '{}', true);
  for i in 1 .. coalesce(array_length(roles, 1), 0) loop
    if i = 1 or roles[i] is distinct from roles[i - 1] then
      if i > 1 then
        deallocate chartroom_rls_check;
      end if;
      perform set_config('role', 'none', true);
      perform set_config('role', roles[i], true);
      execute 'prepare chartroom_rls_check as ' || check_sql;
    end if;
    perform set_config('request.jwt.claims', claims[i], true);
    execute 'execute chartroom_rls_check' into visible;
    result := result || coalesce(visible, false);
  end loop;
  perform set_config('role', 'none', true);
  if exists (select 1 from pg_prepared_statements where name = 'chartroom_rls_check') then
    deallocate chartroom_rls_check;
  end if;
  return result;
end
$fn$;
revoke all on function ${VISIBILITY_FUNCTION}(text, bigint, text[], text[]) from public;
`;

/** Creates the helper unless present; serialised so concurrent feeds never race the DDL. */
export async function ensureSqlHelpers(pool: pg.Pool): Promise<void> {
  await asAdmin(pool, async (client) => {
    await client.query(`select pg_advisory_xact_lock(hashtext('chartroom_realtime_changes_helpers'))`);
    const exists = await client.query(`select to_regprocedure($1) is not null as present`, [
      `${VISIBILITY_FUNCTION}(text, bigint, text[], text[])`,
    ]);
    if ((exists.rows[0] as { present: boolean } | undefined)?.present) return;
    await client.query(`create schema if not exists realtime`);
    await client.query(DEFINITION);
  });
}
