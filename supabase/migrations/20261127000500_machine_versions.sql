-- Named versions of a machine. A version names a position in the machine's op log
-- ("v2: retries capped" at seq 418): the definition at that seq is the log's ops 1..seq
-- replayed, as time travel does, so a version stores no copy of the definition.
--
-- Who may do what: whoever may read the machine's project reads its versions; owners and
-- editors (not guests) name one; the person who named it, or an owner, deletes it.
-- Bad input is refused before anything is written, each with its own message in
-- PostgREST's error shape: an empty or too long name (22023), a name the machine already
-- has (23505), a seq beyond the log's head or below 0 (22023), a machine that does not
-- exist or that the caller cannot see (PT404).
--
-- Live: the table is published for postgres changes (RLS-checked per subscriber, so only
-- readers of the project hear of a new version). A DELETE event carries only a random
-- `realtime_key` (replica identity), as for the tables in
-- 20261124000210_private_project_channels.sql: it names no version, machine or project.

create table public.machine_versions (
  id uuid primary key default gen_random_uuid(),
  -- Copied from the machine (by the trigger below) so policies need no join.
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  name text not null check (char_length(btrim(name)) between 1 and 200),
  seq bigint not null check (seq >= 0),
  created_by uuid references auth.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  realtime_key uuid not null default gen_random_uuid(),
  constraint machine_versions_name_key unique (machine_id, name)
);
create index machine_versions_machine_idx on public.machine_versions (machine_id, seq);
create index machine_versions_project_idx on public.machine_versions (project_id);
create unique index machine_versions_realtime_key_idx on public.machine_versions (realtime_key);
alter table public.machine_versions replica identity using index machine_versions_realtime_key_idx;
comment on column public.machine_versions.realtime_key is 'Replica identity only: a DELETE event carries this, never the id.';

/**
 * Checks a new version before it is written and fills in its project: the name trimmed,
 * 1..200 characters, not taken on this machine; the machine visible to the caller; the
 * seq at most the log's head (a version names a position that exists). Runs as definer
 * so it reads the log's head whatever the caller may read; RLS still decides the insert.
 */
create function public.machine_versions_check() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_project uuid;
  v_head bigint;
begin
  new.name := btrim(coalesce(new.name, ''));
  if char_length(new.name) = 0 then
    raise exception 'a version needs a name' using errcode = '22023';
  end if;
  if char_length(new.name) > 200 then
    raise exception 'a version''s name is at most 200 characters (this one has %)', char_length(new.name)
      using errcode = '22023';
  end if;
  select m.project_id into v_project from public.machines m where m.id = new.machine_id;
  if v_project is null
     or not (coalesce(auth.role(), '') = 'service_role' or public.can_read_project(v_project)) then
    raise exception 'machine not found' using errcode = 'PT404';
  end if;
  new.project_id := v_project;
  if new.seq is null or new.seq < 0 then
    raise exception 'a version names a position in the log: seq must be 0 or more' using errcode = '22023';
  end if;
  select greatest(coalesce(max(o.seq), 0), (select m.version from public.machines m where m.id = new.machine_id))
    into v_head from public.machine_ops o where o.machine_id = new.machine_id;
  if new.seq > v_head then
    raise exception 'seq % is beyond the log''s head %', new.seq, v_head using errcode = '22023';
  end if;
  if exists (select 1 from public.machine_versions v where v.machine_id = new.machine_id and v.name = new.name) then
    raise exception 'this machine already has a version named "%"', new.name using errcode = '23505';
  end if;
  return new;
end
$$;
revoke execute on function public.machine_versions_check() from public, anon, authenticated;

create trigger machine_versions_check before insert on public.machine_versions
  for each row execute function public.machine_versions_check();

-- Row level security and grants --------------------------------------------------------

alter table public.machine_versions enable row level security;

create policy "machine versions: read with the project"
  on public.machine_versions for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "machine versions: owners and editors name"
  on public.machine_versions for insert to authenticated
  with check (public.can_edit_project(project_id) and not public.is_guest() and created_by = auth.uid());
create policy "machine versions: who named it, or an owner, deletes"
  on public.machine_versions for delete to authenticated
  using (
    public.is_project_member(project_id)
    and (created_by = auth.uid() or public.is_project_owner(project_id))
  );
create policy "machine versions: service role"
  on public.machine_versions for all to service_role using (true) with check (true);

-- Explicit grants: nothing by default; clients read, name (these columns only) and delete.
revoke all on public.machine_versions from public, anon, authenticated;
grant select on public.machine_versions to anon, authenticated;
grant insert (machine_id, name, seq, created_by) on public.machine_versions to authenticated;
grant delete on public.machine_versions to authenticated;
grant select, insert, update, delete on public.machine_versions to service_role;

-- Realtime: the room hears of new versions (through RLS).
alter publication supabase_realtime add table public.machine_versions;
