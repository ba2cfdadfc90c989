-- Saved tests of a machine and their runs. A test is a row: a name, the
-- script (start expectation and steps: events or time, each with guard outcomes and the
-- expected active states), the initial context and the machine version it was saved at.
-- Running happens in the browser (src/lib/testing replays the script on the machine's
-- current definition); a run is a row holding the result, pass or the first failing step,
-- and the version it ran on, so the whole room sees it live and a run on an older
-- version reads as stale.
--
-- Who may do what: members of any role (owner, editor, viewer) save and run tests,
-- except guests (anonymous sessions), who watch, as with simulations; anyone who may read
-- the project reads them; outsiders and anon see nothing of a private project, over REST
-- or realtime. A test is deleted by whoever saved it, or by the project's owners and editors.

create table public.machine_tests (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  name text not null check (char_length(btrim(name)) between 1 and 200),
  script jsonb not null check (
    jsonb_typeof(script) = 'object'
    and coalesce(jsonb_typeof(script -> 'start'), '') = 'array'
    and coalesce(jsonb_typeof(script -> 'steps'), '') = 'array'
    and jsonb_array_length(script -> 'steps') <= 10000
    and octet_length(script::text) <= 524288
  ),
  initial_context jsonb check (initial_context is null or jsonb_typeof(initial_context) = 'object'),
  machine_version bigint not null check (machine_version >= 0),
  source text not null default 'path' check (source in ('path', 'simulation')),
  simulation_id uuid references public.simulations (id) on delete set null,
  created_by uuid references auth.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now()
);
create index machine_tests_machine_idx on public.machine_tests (machine_id, created_at);
create index machine_tests_project_idx on public.machine_tests (project_id);

create table public.machine_test_runs (
  id uuid primary key default gen_random_uuid(),
  test_id uuid not null references public.machine_tests (id) on delete cascade,
  -- Copied from the test so policies and realtime filters need no join.
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  machine_version bigint not null check (machine_version >= 0),
  status text not null check (status in ('pass', 'fail')),
  failed_step integer check ((status = 'fail') = (failed_step is not null) and (failed_step is null or failed_step >= 0)),
  message text check (message is null or char_length(message) <= 2000),
  run_by uuid references auth.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now()
);
create index machine_test_runs_test_idx on public.machine_test_runs (test_id, created_at);
create index machine_test_runs_machine_idx on public.machine_test_runs (machine_id, created_at);

/** A test's project and machine must agree with the machine row (no smuggling a test into another project). */
create function public.machine_tests_check_owner() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not exists (select 1 from public.machines m where m.id = new.machine_id and m.project_id = new.project_id) then
    raise exception 'machine not found' using errcode = 'PT404';
  end if;
  return new;
end
$$;

/** A run's project and machine are the test's. */
create function public.machine_test_runs_check_test() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not exists (select 1 from public.machine_tests t
                  where t.id = new.test_id and t.machine_id = new.machine_id and t.project_id = new.project_id) then
    raise exception 'test not found' using errcode = 'PT404';
  end if;
  return new;
end
$$;

revoke execute on function public.machine_tests_check_owner() from public, anon, authenticated;
revoke execute on function public.machine_test_runs_check_test() from public, anon, authenticated;

create trigger machine_tests_check before insert or update on public.machine_tests
  for each row execute function public.machine_tests_check_owner();
create trigger machine_test_runs_check before insert or update on public.machine_test_runs
  for each row execute function public.machine_test_runs_check_test();

-- Row level security and grants --------------------------------------------------------

alter table public.machine_tests enable row level security;
alter table public.machine_test_runs enable row level security;

create policy "machine tests: read with the project"
  on public.machine_tests for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "machine tests: members save"
  on public.machine_tests for insert to authenticated
  with check (public.is_project_member(project_id) and not public.is_guest() and created_by = auth.uid());
create policy "machine tests: the author, owners and editors delete"
  on public.machine_tests for delete to authenticated
  using (
    public.is_project_member(project_id)
    and (created_by = auth.uid() or public.project_role(project_id) in ('owner', 'editor'))
  );
create policy "machine tests: service role"
  on public.machine_tests for all to service_role using (true) with check (true);

create policy "machine test runs: read with the project"
  on public.machine_test_runs for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "machine test runs: members run"
  on public.machine_test_runs for insert to authenticated
  with check (public.is_project_member(project_id) and not public.is_guest() and run_by = auth.uid());
create policy "machine test runs: service role"
  on public.machine_test_runs for all to service_role using (true) with check (true);

-- Explicit grants: nothing by default; clients read, insert, and delete tests (RLS decides).
revoke all on public.machine_tests, public.machine_test_runs from public, anon, authenticated;
grant select on public.machine_tests, public.machine_test_runs to anon, authenticated;
grant insert (project_id, machine_id, name, script, initial_context, machine_version, source, simulation_id, created_by)
  on public.machine_tests to authenticated;
grant delete on public.machine_tests to authenticated;
grant insert (test_id, project_id, machine_id, machine_version, status, failed_step, message, run_by)
  on public.machine_test_runs to authenticated;
grant select, insert, update, delete on public.machine_tests, public.machine_test_runs to service_role;

-- Realtime: the room follows a machine's tests and their runs (through RLS).
alter publication supabase_realtime add table public.machine_tests, public.machine_test_runs;
