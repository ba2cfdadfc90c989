-- Machines and their operation log: the statecharts of a project, edited by many people
-- at once. `machines.definition` is a snapshot of Chartroom's model (src/lib/model) after
-- the op numbered `version`; `machine_ops` is the append-only log of every op, numbered
-- 1, 2, 3 ... per machine. Clients apply ops in TypeScript (the model lives there), so a
-- committing client sends the definition it computed along with its ops: the log is the
-- truth for ordering, the snapshot spares a reader from folding the whole log.
--
-- Who may do what: members read (public projects: everyone), editors and owners create,
-- rename and delete machines and commit ops, viewers never write, and nobody updates or
-- deletes an op (the service role aside, for maintenance).

create table public.machines (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references public.projects (id) on delete cascade,
  name text not null check (char_length(btrim(name)) between 1 and 120),
  definition jsonb not null check (jsonb_typeof(definition) = 'object'),
  version bigint not null default 0 check (version >= 0),
  created_by uuid default auth.uid() references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index machines_project_id_idx on public.machines (project_id);

create table public.machine_ops (
  machine_id uuid not null references public.machines (id) on delete cascade,
  seq bigint not null check (seq > 0),
  author uuid default auth.uid() references auth.users (id) on delete set null,
  client_id text not null check (char_length(client_id) between 1 and 100),
  batch_id uuid not null,
  op jsonb not null check (jsonb_typeof(op) = 'object'),
  created_at timestamptz not null default now(),
  primary key (machine_id, seq)
);
-- Retries look a batch up by id; the index keeps that lookup off the whole log.
create index machine_ops_batch_idx on public.machine_ops (machine_id, batch_id);

create function public.can_read_machine(p_machine uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.machines m
                  where m.id = p_machine and public.can_read_project(m.project_id))
$$;

revoke execute on function public.can_read_machine(uuid) from public;
grant execute on function public.can_read_machine(uuid) to anon, authenticated, service_role;

-- Grants: everyone who may read a project reads its machines and ops (RLS decides which);
-- editors write machines; ops are written only by commit_machine_ops, the service role
-- aside (maintenance).
grant select on public.machines, public.machine_ops to anon;
grant select, insert, update, delete on public.machines to authenticated, service_role;
grant select on public.machine_ops to authenticated;
grant select, insert, update, delete on public.machine_ops to service_role;

-- Bookkeeping --------------------------------------------------------------------------

create trigger machines_touch before update on public.machines
  for each row execute function public.touch_updated_at();

/**
 * The definition and version move only through commit_machine_ops (which marks its
 * transaction with chartroom.committing), so the snapshot never drifts from the log.
 * A new machine starts at version 0 with an empty log. The service role is trusted.
 */
create function public.guard_machine_write() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if coalesce(auth.role(), '') = 'service_role' then
    return new;
  end if;
  if tg_op = 'INSERT' then
    if new.version <> 0 then
      raise exception 'a new machine starts at version 0' using errcode = '23514';
    end if;
    if new.created_by is distinct from auth.uid() then
      raise exception 'created_by must be the caller' using errcode = '42501';
    end if;
    return new;
  end if;
  if new.id is distinct from old.id or new.project_id is distinct from old.project_id
     or new.created_by is distinct from old.created_by then
    raise exception 'a machine''s id, project and creator do not change' using errcode = '42501';
  end if;
  if (new.definition is distinct from old.definition or new.version is distinct from old.version)
     and coalesce(current_setting('chartroom.committing', true), '') <> 'on' then
    raise exception 'edit a machine''s definition through commit_machine_ops'
      using errcode = '42501', hint = 'Send operations with rpc(''commit_machine_ops'').';
  end if;
  return new;
end
$$;
revoke execute on function public.guard_machine_write() from public;

create trigger machines_guard before insert or update on public.machines
  for each row execute function public.guard_machine_write();

-- Row level security -------------------------------------------------------------------

alter table public.machines enable row level security;
alter table public.machine_ops enable row level security;

create policy "machines: read with the project"
  on public.machines for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "machines: editors create"
  on public.machines for insert to authenticated
  with check (public.can_edit_project(project_id));
create policy "machines: editors rename"
  on public.machines for update to authenticated
  using (public.can_edit_project(project_id)) with check (public.can_edit_project(project_id));
create policy "machines: editors delete"
  on public.machines for delete to authenticated
  using (public.can_edit_project(project_id));

create policy "machine ops: read with the machine"
  on public.machine_ops for select to anon, authenticated
  using (public.can_read_machine(machine_id));
-- No write policies: ops enter only through commit_machine_ops. Granting anon and
-- authenticated no write (above) makes a direct write a clear permission error rather
-- than a silent no-op.

-- Committing ----------------------------------------------------------------------------

/**
 * Commits a batch of ops against the version the client based them on, atomically.
 *
 * Security definer, with the permission checks written out: with security invoker the
 * caller would need an insert policy on machine_ops, which would let any editor append
 * ops by hand, skipping the version check. Here the function is the only writer.
 *
 * - The machine row is locked first, so concurrent commits serialise and sequence
 *   numbers stay gapless.
 * - A batch_id already in the log returns its seq range (duplicate: true) and writes
 *   nothing: retrying after a lost response is safe. This check comes before the version
 *   check because such a retry carries a base that is now stale.
 * - A base other than the current version is refused with SQLSTATE CR409, message
 *   `version_conflict`, detail `{"current_version": n}`: the client fetches the ops
 *   after its base, rebases and retries.
 * - p_definition is the definition after applying the batch to the base; it becomes the
 *   snapshot at the new version.
 */
create function public.commit_machine_ops(
  p_machine uuid,
  p_base_version bigint,
  p_client_id text,
  p_batch_id uuid,
  p_ops jsonb,
  p_definition jsonb
) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_project uuid;
  v_version bigint;
  v_first bigint;
  v_last bigint;
  v_count integer;
  v_service boolean := coalesce(auth.role(), '') = 'service_role';
begin
  if auth.uid() is null and not v_service then
    raise exception 'sign in to edit a machine' using errcode = '42501';
  end if;
  if p_machine is null or p_batch_id is null or p_base_version is null or p_base_version < 0 then
    raise exception 'machine, batch id and a base version >= 0 are required' using errcode = '22023';
  end if;
  if p_client_id is null or char_length(p_client_id) not between 1 and 100 then
    raise exception 'client id must be 1 to 100 characters' using errcode = '22023';
  end if;
  if p_ops is null or jsonb_typeof(p_ops) <> 'array' or jsonb_array_length(p_ops) = 0 then
    raise exception 'ops must be a non-empty array' using errcode = '22023';
  end if;
  if jsonb_array_length(p_ops) > 1000 then
    raise exception 'at most 1000 ops per batch' using errcode = '22023';
  end if;
  if exists (select 1 from jsonb_array_elements(p_ops) e
              where jsonb_typeof(e) <> 'object' or jsonb_typeof(e -> 'type') is distinct from 'string') then
    raise exception 'every op must be an object with a string "type"' using errcode = '22023';
  end if;
  if p_definition is null or jsonb_typeof(p_definition) <> 'object' then
    raise exception 'definition must be an object' using errcode = '22023';
  end if;

  select m.project_id, m.version into v_project, v_version
    from public.machines m where m.id = p_machine for update;
  -- A machine you cannot read is reported missing, so ids do not leak.
  if v_project is null or not (v_service or public.can_read_project(v_project)) then
    raise exception 'machine not found' using errcode = 'P0002';
  end if;
  if not (v_service or public.can_edit_project(v_project)) then
    raise exception 'only editors and owners edit this machine' using errcode = '42501';
  end if;

  select min(o.seq), max(o.seq) into v_first, v_last
    from public.machine_ops o where o.machine_id = p_machine and o.batch_id = p_batch_id;
  if v_first is not null then
    return jsonb_build_object('first_seq', v_first, 'last_seq', v_last, 'version', v_version, 'duplicate', true);
  end if;

  if p_base_version <> v_version then
    raise exception 'version_conflict' using errcode = 'CR409',
      detail = jsonb_build_object('current_version', v_version)::text,
      hint = 'Fetch the ops after your base version, rebase and retry.';
  end if;

  v_count := jsonb_array_length(p_ops);
  insert into public.machine_ops (machine_id, seq, author, client_id, batch_id, op)
  select p_machine, v_version + t.ord, auth.uid(), p_client_id, p_batch_id, t.elem
    from jsonb_array_elements(p_ops) with ordinality as t(elem, ord);

  perform set_config('chartroom.committing', 'on', true);
  update public.machines
     set definition = p_definition, version = v_version + v_count
   where id = p_machine;
  perform set_config('chartroom.committing', '', true);

  return jsonb_build_object('first_seq', v_version + 1, 'last_seq', v_version + v_count,
                            'version', v_version + v_count, 'duplicate', false);
end
$$;
revoke execute on function public.commit_machine_ops(uuid, bigint, text, uuid, jsonb, jsonb) from public, anon;
grant execute on function public.commit_machine_ops(uuid, bigint, text, uuid, jsonb, jsonb) to authenticated, service_role;

-- Realtime: clients follow the machine list and each open machine's op log.
alter publication supabase_realtime add table public.machines, public.machine_ops;
