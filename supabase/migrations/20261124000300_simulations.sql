-- Shared simulations: a machine run together. A simulation pins the machine's definition
-- at one version, its initial context and guard switches; its events form an ordered log
-- (seq 1, 2, 3 ... per simulation, assigned here, so two people sending at once get one
-- order, the server's). Every client computes the state by replaying that log
-- (src/lib/simulation), so the database never runs a statechart: whether an event was
-- ignored at its position is derived by replay, the same on every client, not stored.
--
-- Who may do what: members of any role (owner, editor, viewer) start simulations and send
-- events, except guests (anonymous sessions), who watch even where a share link made them
-- viewers; anyone who may read the project (public projects: guests too) reads them;
-- outsiders and anon see nothing of a private project, over REST or realtime. Rows enter
-- only through the functions below, which check, order and rate-limit.

create table public.simulations (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  machine_version bigint not null check (machine_version >= 0),
  definition jsonb not null check (jsonb_typeof(definition) = 'object'),
  initial_context jsonb check (initial_context is null or jsonb_typeof(initial_context) = 'object'),
  guards jsonb not null default '{}' check (jsonb_typeof(guards) = 'object'),
  created_by uuid references auth.users (id) on delete set null,
  status text not null default 'running' check (status in ('running', 'ended')),
  forked_from uuid references public.simulations (id) on delete set null,
  forked_at_seq bigint check (forked_at_seq is null or forked_at_seq >= 0),
  last_seq bigint not null default 0 check (last_seq >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index simulations_machine_idx on public.simulations (machine_id, created_at);
create index simulations_project_idx on public.simulations (project_id);

create table public.simulation_events (
  simulation_id uuid not null references public.simulations (id) on delete cascade,
  seq bigint not null check (seq > 0),
  -- Copied from the simulation so policies and realtime filters need no join.
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  sender uuid references auth.users (id) on delete set null,
  kind text not null check (kind in ('event', 'time')),
  type text check ((kind = 'event') = (type is not null) and char_length(type) between 1 and 200),
  payload jsonb not null default '{}' check (jsonb_typeof(payload) = 'object'),
  guards jsonb not null default '{}' check (jsonb_typeof(guards) = 'object'),
  created_at timestamptz not null default now(),
  primary key (simulation_id, seq)
);
create index simulation_events_machine_idx on public.simulation_events (machine_id, created_at);

create trigger simulations_touch before update on public.simulations
  for each row execute function public.touch_updated_at();

-- Per-person send budget (a token bucket): internal, no client reads or writes it.
create table public.simulation_send_budget (
  user_id uuid primary key references auth.users (id) on delete cascade,
  tokens double precision not null,
  refreshed_at timestamptz not null
);

-- Row level security and grants --------------------------------------------------------

alter table public.simulations enable row level security;
alter table public.simulation_events enable row level security;
alter table public.simulation_send_budget enable row level security;

create policy "simulations: read with the project"
  on public.simulations for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "simulation events: read with the project"
  on public.simulation_events for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "simulations: service role"
  on public.simulations for all to service_role using (true) with check (true);
create policy "simulation events: service role"
  on public.simulation_events for all to service_role using (true) with check (true);
create policy "simulation send budget: service role"
  on public.simulation_send_budget for all to service_role using (true) with check (true);

-- Explicit grants: reading only, for clients; writes go through the functions below.
revoke all on public.simulations, public.simulation_events, public.simulation_send_budget from public, anon, authenticated;
grant select on public.simulations, public.simulation_events to anon, authenticated;
grant select, insert, update, delete on public.simulations, public.simulation_events, public.simulation_send_budget to service_role;

-- Checks shared by the functions --------------------------------------------------------

/** Guard switches: an object of at most 200 booleans, names 1 to 200 characters. */
create function public.check_simulation_guards(p_guards jsonb) returns jsonb
language plpgsql immutable set search_path = '' as $$
begin
  if p_guards is null then
    return '{}'::jsonb;
  end if;
  if jsonb_typeof(p_guards) <> 'object' then
    raise exception 'guards must be an object of true/false switches' using errcode = '22023';
  end if;
  if (select count(*) from jsonb_object_keys(p_guards)) > 200 then
    raise exception 'at most 200 guard switches' using errcode = '22023';
  end if;
  if exists (select 1 from jsonb_each(p_guards) g
              where jsonb_typeof(g.value) <> 'boolean' or char_length(g.key) not between 1 and 200) then
    raise exception 'every guard switch must be true or false, named 1 to 200 characters' using errcode = '22023';
  end if;
  return p_guards;
end
$$;

/** A JSON object of at most 64 KB (payloads and initial context). */
create function public.check_simulation_object(p_value jsonb, p_what text) returns jsonb
language plpgsql immutable set search_path = '' as $$
begin
  if p_value is null then
    return null;
  end if;
  if jsonb_typeof(p_value) <> 'object' then
    raise exception '% must be a JSON object', p_what using errcode = '22023';
  end if;
  if octet_length(p_value::text) > 65536 then
    raise exception '% is larger than 64 KB', p_what using errcode = 'PT413',
      hint = 'Send a smaller JSON value.';
  end if;
  return p_value;
end
$$;

revoke execute on function public.check_simulation_guards(jsonb) from public, anon, authenticated;
revoke execute on function public.check_simulation_object(jsonb, text) from public, anon, authenticated;
grant execute on function public.check_simulation_guards(jsonb) to service_role;
grant execute on function public.check_simulation_object(jsonb, text) to service_role;

-- Starting ---------------------------------------------------------------------------------

/**
 * Starts a simulation of a machine at its current version: any member may. The
 * definition is copied from the machine row, so what runs is exactly that version.
 * Unknown or unreadable machine: PT404 (ids do not leak); a non-member: 42501.
 */
create function public.start_simulation(p_machine uuid, p_context jsonb default null, p_guards jsonb default '{}')
returns public.simulations
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_machine public.machines;
  v_row public.simulations;
  v_service boolean := coalesce(auth.role(), '') = 'service_role';
begin
  if auth.uid() is null and not v_service then
    raise exception 'sign in to start a simulation' using errcode = '42501';
  end if;
  if public.is_guest() then
    raise exception 'guests watch simulations; create an account to take part' using errcode = '42501';
  end if;
  select * into v_machine from public.machines m where m.id = p_machine;
  if v_machine.id is null or not (v_service or public.can_read_project(v_machine.project_id)) then
    raise exception 'machine not found' using errcode = 'PT404';
  end if;
  if not (v_service or public.is_project_member(v_machine.project_id)) then
    raise exception 'only members of the project start simulations' using errcode = '42501';
  end if;
  insert into public.simulations (project_id, machine_id, machine_version, definition, initial_context, guards, created_by)
  values (v_machine.project_id, v_machine.id, v_machine.version, v_machine.definition,
          public.check_simulation_object(p_context, 'context'), public.check_simulation_guards(p_guards), auth.uid())
  returning * into v_row;
  return v_row;
end
$$;

-- Sending -----------------------------------------------------------------------------------

/**
 * Appends one event (`kind` 'event' with a type, or 'time': advance the simulated clock)
 * to a simulation's log and answers `{ simulation_id, seq }`. The simulation row is
 * locked, so concurrent senders get gapless, server-ordered seqs.
 * Errors (nothing is stored): 42501 not signed in / not a member; PT404 unknown
 * simulation; 22023 malformed; PT413 payload over 64 KB; PT409 ended; PT429 over the
 * per-person rate (50 a second, bursts of 50).
 */
create function public.send_simulation_event(
  p_simulation uuid,
  p_kind text,
  p_type text default null,
  p_payload jsonb default '{}',
  p_guards jsonb default '{}'
) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_sim public.simulations;
  v_seq bigint;
  v_tokens double precision;
  v_payload jsonb;
  v_guards jsonb;
  v_service boolean := coalesce(auth.role(), '') = 'service_role';
begin
  if auth.uid() is null and not v_service then
    raise exception 'sign in to send simulation events' using errcode = '42501';
  end if;
  if public.is_guest() then
    raise exception 'guests watch simulations; create an account to take part' using errcode = '42501';
  end if;
  if p_kind is null or p_kind not in ('event', 'time') then
    raise exception 'kind must be "event" or "time"' using errcode = '22023';
  end if;
  if p_kind = 'event' then
    if p_type is null or char_length(p_type) not between 1 and 200 then
      raise exception 'an event needs a type of 1 to 200 characters' using errcode = '22023';
    end if;
    if p_type like 'xstate.%' and p_type !~ '^xstate\.(done|error)\.actor\..+' then
      raise exception 'event type "%" is reserved by XState', p_type using errcode = '22023',
        hint = 'Only an invoked actor''s xstate.done.actor.<id> and xstate.error.actor.<id> may be sent.';
    end if;
  elsif p_type is not null then
    raise exception 'advancing time takes no event type' using errcode = '22023';
  end if;
  v_payload := coalesce(public.check_simulation_object(p_payload, 'payload'), '{}'::jsonb);
  if v_payload ? 'type' then
    raise exception 'payload must not set "type"; the event type is its own field' using errcode = '22023';
  end if;
  v_guards := public.check_simulation_guards(p_guards);

  select * into v_sim from public.simulations s where s.id = p_simulation for update;
  if v_sim.id is null or not (v_service or public.can_read_project(v_sim.project_id)) then
    raise exception 'simulation not found' using errcode = 'PT404';
  end if;
  if not (v_service or public.is_project_member(v_sim.project_id)) then
    raise exception 'only members of the project send simulation events' using errcode = '42501';
  end if;
  if v_sim.status <> 'running' then
    raise exception 'this simulation has ended' using errcode = 'PT409',
      hint = 'Start a new simulation or fork this one.';
  end if;

  if not v_service then
    insert into public.simulation_send_budget as b (user_id, tokens, refreshed_at)
    values (auth.uid(), 49, clock_timestamp())
    on conflict (user_id) do update
      set tokens = least(50, b.tokens + 50 * extract(epoch from clock_timestamp() - b.refreshed_at)) - 1,
          refreshed_at = clock_timestamp()
    returning tokens into v_tokens;
    if v_tokens < 0 then
      raise exception 'too many simulation events: at most 50 a second' using errcode = 'PT429',
        hint = 'Wait a moment and send again.';
    end if;
  end if;

  v_seq := v_sim.last_seq + 1;
  insert into public.simulation_events (simulation_id, seq, project_id, machine_id, sender, kind, type, payload, guards)
  values (v_sim.id, v_seq, v_sim.project_id, v_sim.machine_id, auth.uid(), p_kind, p_type, v_payload, v_guards);
  update public.simulations set last_seq = v_seq where id = v_sim.id;
  return jsonb_build_object('simulation_id', v_sim.id, 'seq', v_seq);
end
$$;

-- Forking and ending ---------------------------------------------------------------------------

/**
 * A new simulation holding the first p_upto_seq events of another (Fork from here).
 * With p_latest the fork runs on the machine's current version (re-run on a new version).
 */
create function public.fork_simulation(p_simulation uuid, p_upto_seq bigint, p_latest boolean default false)
returns public.simulations
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_sim public.simulations;
  v_machine public.machines;
  v_row public.simulations;
  v_service boolean := coalesce(auth.role(), '') = 'service_role';
begin
  if auth.uid() is null and not v_service then
    raise exception 'sign in to fork a simulation' using errcode = '42501';
  end if;
  if public.is_guest() then
    raise exception 'guests watch simulations; create an account to take part' using errcode = '42501';
  end if;
  select * into v_sim from public.simulations s where s.id = p_simulation;
  if v_sim.id is null or not (v_service or public.can_read_project(v_sim.project_id)) then
    raise exception 'simulation not found' using errcode = 'PT404';
  end if;
  if not (v_service or public.is_project_member(v_sim.project_id)) then
    raise exception 'only members of the project fork simulations' using errcode = '42501';
  end if;
  if p_upto_seq is null or p_upto_seq < 0 or p_upto_seq > v_sim.last_seq then
    raise exception 'fork point must be between 0 and %', v_sim.last_seq using errcode = '22023';
  end if;
  if coalesce(p_latest, false) then
    select * into v_machine from public.machines m where m.id = v_sim.machine_id;
    v_sim.definition := v_machine.definition;
    v_sim.machine_version := v_machine.version;
  end if;
  insert into public.simulations (project_id, machine_id, machine_version, definition, initial_context, guards,
                                  created_by, forked_from, forked_at_seq, last_seq)
  values (v_sim.project_id, v_sim.machine_id, v_sim.machine_version, v_sim.definition, v_sim.initial_context,
          v_sim.guards, auth.uid(), v_sim.id, p_upto_seq, p_upto_seq)
  returning * into v_row;
  insert into public.simulation_events (simulation_id, seq, project_id, machine_id, sender, kind, type, payload, guards, created_at)
  select v_row.id, e.seq, e.project_id, e.machine_id, e.sender, e.kind, e.type, e.payload, e.guards, e.created_at
    from public.simulation_events e
   where e.simulation_id = v_sim.id and e.seq <= p_upto_seq;
  return v_row;
end
$$;

/** Ends a running simulation (any member); its log stays readable and replayable. */
create function public.end_simulation(p_simulation uuid) returns public.simulations
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_sim public.simulations;
  v_service boolean := coalesce(auth.role(), '') = 'service_role';
begin
  if auth.uid() is null and not v_service then
    raise exception 'sign in to end a simulation' using errcode = '42501';
  end if;
  if public.is_guest() then
    raise exception 'guests watch simulations; create an account to take part' using errcode = '42501';
  end if;
  select * into v_sim from public.simulations s where s.id = p_simulation for update;
  if v_sim.id is null or not (v_service or public.can_read_project(v_sim.project_id)) then
    raise exception 'simulation not found' using errcode = 'PT404';
  end if;
  if not (v_service or public.is_project_member(v_sim.project_id)) then
    raise exception 'only members of the project end simulations' using errcode = '42501';
  end if;
  update public.simulations set status = 'ended' where id = v_sim.id returning * into v_sim;
  return v_sim;
end
$$;

revoke execute on function public.start_simulation(uuid, jsonb, jsonb) from public, anon;
revoke execute on function public.send_simulation_event(uuid, text, text, jsonb, jsonb) from public, anon;
revoke execute on function public.fork_simulation(uuid, bigint, boolean) from public, anon;
revoke execute on function public.end_simulation(uuid) from public, anon;
grant execute on function public.start_simulation(uuid, jsonb, jsonb) to authenticated, service_role;
grant execute on function public.send_simulation_event(uuid, text, text, jsonb, jsonb) to authenticated, service_role;
grant execute on function public.fork_simulation(uuid, bigint, boolean) to authenticated, service_role;
grant execute on function public.end_simulation(uuid) to authenticated, service_role;

-- Realtime: clients follow a machine's simulations and each simulation's log.
alter publication supabase_realtime add table public.simulations, public.simulation_events;
