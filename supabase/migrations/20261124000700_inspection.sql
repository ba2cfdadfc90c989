-- Live inspection: a team's own app reports its actors (the stock @statelyai/inspect
-- inspector) to the `inspect` edge function, which stores the events here and fans them
-- out to the project's members on the private channel `inspect:<project>`.
--
-- Who may do what:
--   sources    members read (name, limits, who made it, revoked or not); only owners
--              create (create_inspection_source, which returns the key once: only its
--              sha-256 is stored, in a table no client role can read) and revoke
--              (revoke_inspection_source, which also tells the function to close the
--              source's open sockets).
--   sessions,  members read; only the service role writes (the function, through
--   events     ingest_inspection_events, which checks the key again, stores, trims to
--              the source's retention and broadcasts, in one transaction).
--   outsiders  see nothing, not even that a source exists: every refusal looks the same
--              as "no such source".

create table public.inspection_sources (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references public.projects (id) on delete cascade,
  name text not null check (char_length(btrim(name)) between 1 and 80),
  -- Retention: the last N events and D days of the source (both enforced on ingest).
  max_events integer not null default 10000 check (max_events between 100 and 1000000),
  max_days integer not null default 7 check (max_days between 1 and 90),
  -- Events per second the function accepts from this source (burst: twice as many).
  rate_per_second integer not null default 5000 check (rate_per_second between 1 and 100000),
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  -- The seq of the source's newest event (events are numbered 1, 2, 3 ... per source).
  last_seq bigint not null default 0
);
create index inspection_sources_project_idx on public.inspection_sources (project_id, created_at);

-- The key's hash, apart from the row members read, so no column grant can leak it.
create table public.inspection_source_keys (
  source_id uuid primary key references public.inspection_sources (id) on delete cascade,
  key_hash bytea not null unique
);

-- One connection of an inspected app (a socket), or one POST client label.
create table public.inspection_sessions (
  id uuid primary key default gen_random_uuid(),
  source_id uuid not null references public.inspection_sources (id) on delete cascade,
  project_id uuid not null references public.projects (id) on delete cascade,
  client_key text not null check (char_length(client_key) between 1 and 120),
  started_at timestamptz not null default now(),
  last_event_at timestamptz not null default now(),
  ended_at timestamptz,
  event_count bigint not null default 0,
  unique (source_id, client_key)
);
create index inspection_sessions_project_idx on public.inspection_sessions (project_id, started_at desc);

create table public.inspection_events (
  source_id uuid not null references public.inspection_sources (id) on delete cascade,
  seq bigint not null check (seq > 0),
  session_id uuid not null references public.inspection_sessions (id) on delete cascade,
  project_id uuid not null references public.projects (id) on delete cascade,
  type text not null check (type in ('@xstate.actor', '@xstate.snapshot', '@xstate.event')),
  actor_id text not null check (char_length(actor_id) between 1 and 200),
  root_id text check (char_length(root_id) <= 200),
  body jsonb not null check (jsonb_typeof(body) = 'object'),
  received_at timestamptz not null default now(),
  primary key (source_id, seq)
);
create index inspection_events_session_idx on public.inspection_events (session_id, seq);
create index inspection_events_received_idx on public.inspection_events (source_id, received_at);

-- Row level security and grants --------------------------------------------------------

alter table public.inspection_sources enable row level security;
alter table public.inspection_source_keys enable row level security;
alter table public.inspection_sessions enable row level security;
alter table public.inspection_events enable row level security;

create policy "inspection sources: members read"
  on public.inspection_sources for select to authenticated
  using (public.is_project_member(project_id));
create policy "inspection sessions: members read"
  on public.inspection_sessions for select to authenticated
  using (public.is_project_member(project_id));
create policy "inspection events: members read"
  on public.inspection_events for select to authenticated
  using (public.is_project_member(project_id));
create policy "inspection sources: service role"
  on public.inspection_sources for all to service_role using (true) with check (true);
create policy "inspection source keys: service role"
  on public.inspection_source_keys for all to service_role using (true) with check (true);
create policy "inspection sessions: service role"
  on public.inspection_sessions for all to service_role using (true) with check (true);
create policy "inspection events: service role"
  on public.inspection_events for all to service_role using (true) with check (true);

revoke all on public.inspection_sources, public.inspection_source_keys, public.inspection_sessions,
  public.inspection_events from public, anon, authenticated;
grant select on public.inspection_sources, public.inspection_sessions, public.inspection_events to authenticated;
grant select, insert, update, delete on public.inspection_sources, public.inspection_source_keys,
  public.inspection_sessions, public.inspection_events to service_role;

-- Realtime: inspect:<project> is read by members; nobody but the database writes it.
create function public.can_watch_inspection_topic(p_topic text) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.is_project_member(public.topic_uuid(p_topic, 'inspect')), false)
$$;
revoke execute on function public.can_watch_inspection_topic(text) from public, anon;
grant execute on function public.can_watch_inspection_topic(text) to authenticated, service_role;

create policy "inspect channels: members receive"
  on realtime.messages for select to authenticated
  using (public.can_watch_inspection_topic(realtime.topic()));

-- Keys ---------------------------------------------------------------------------------

create function public.inspection_key_hash(p_key text) returns bytea
language sql immutable set search_path = '' as $$
  select pg_catalog.sha256(pg_catalog.convert_to(p_key, 'UTF8'))
$$;
revoke execute on function public.inspection_key_hash(text) from public, anon, authenticated;
grant execute on function public.inspection_key_hash(text) to service_role;

/**
 * An owner creates a source; the answer holds the key, which is never shown again.
 * A non-owner (or an outsider) gets the same refusal as for a project that does not exist.
 */
create function public.create_inspection_source(
  p_project uuid,
  p_name text,
  p_max_events integer default 10000,
  p_max_days integer default 7
) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_key text;
  v_source public.inspection_sources;
begin
  if auth.uid() is null or not public.is_project_owner(p_project) then
    raise exception 'Project not found' using errcode = 'P0002';
  end if;
  insert into public.inspection_sources (project_id, name, max_events, max_days, created_by)
  values (p_project, btrim(coalesce(p_name, '')), coalesce(p_max_events, 10000), coalesce(p_max_days, 7), auth.uid())
  returning * into v_source;
  v_key := 'cri_' || encode(extensions.gen_random_bytes(24), 'hex');
  insert into public.inspection_source_keys (source_id, key_hash)
  values (v_source.id, public.inspection_key_hash(v_key));
  return jsonb_build_object('source', to_jsonb(v_source), 'key', v_key);
end
$$;
revoke execute on function public.create_inspection_source(uuid, text, integer, integer) from public, anon;
grant execute on function public.create_inspection_source(uuid, text, integer, integer) to authenticated;

/** An owner revokes a source: its key stops working and its open sockets are closed at once. */
create function public.revoke_inspection_source(p_source uuid) returns timestamptz
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_source public.inspection_sources;
begin
  select * into v_source from public.inspection_sources where id = p_source;
  if not found or auth.uid() is null or not public.is_project_owner(v_source.project_id) then
    raise exception 'Source not found' using errcode = 'P0002';
  end if;
  if v_source.revoked_at is null then
    update public.inspection_sources set revoked_at = now() where id = p_source returning * into v_source;
    update public.inspection_sessions set ended_at = now() where source_id = p_source and ended_at is null;
    perform realtime.send(jsonb_build_object('source_id', p_source, 'revoked_at', v_source.revoked_at),
                          'source_revoked', 'inspect:' || v_source.project_id::text, true);
  end if;
  return v_source.revoked_at;
end
$$;
revoke execute on function public.revoke_inspection_source(uuid) from public, anon;
grant execute on function public.revoke_inspection_source(uuid) to authenticated;

-- Ingest (service role: the inspect function) ------------------------------------------

/** The live source a key opens, or no row: wrong and revoked keys look alike. */
create function public.inspection_source_for_key(p_key text)
returns table (source_id uuid, project_id uuid, name text, rate_per_second integer)
language sql stable security definer set search_path = '' as $$
  select s.id, s.project_id, s.name, s.rate_per_second
    from public.inspection_source_keys k
    join public.inspection_sources s on s.id = k.source_id
   where k.key_hash = public.inspection_key_hash(p_key) and s.revoked_at is null
$$;
revoke execute on function public.inspection_source_for_key(text) from public, anon, authenticated;
grant execute on function public.inspection_source_for_key(text) to service_role;

/** Opens (or reopens) the session `p_client` of the source a live key opens; null for a dead key. */
create function public.open_inspection_session(p_key text, p_client text) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_source record;
  v_session public.inspection_sessions;
begin
  select * into v_source from public.inspection_source_for_key(p_key);
  if not found then
    return null;
  end if;
  insert into public.inspection_sessions (source_id, project_id, client_key)
  values (v_source.source_id, v_source.project_id, p_client)
  on conflict (source_id, client_key) do update set ended_at = null
  returning * into v_session;
  perform realtime.send(jsonb_build_object('session', to_jsonb(v_session)), 'session_opened',
                        'inspect:' || v_source.project_id::text, true);
  return jsonb_build_object('source_id', v_source.source_id, 'project_id', v_source.project_id,
                            'rate_per_second', v_source.rate_per_second, 'session', to_jsonb(v_session));
end
$$;
revoke execute on function public.open_inspection_session(text, text) from public, anon, authenticated;
grant execute on function public.open_inspection_session(text, text) to service_role;

create function public.end_inspection_session(p_session uuid) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_session public.inspection_sessions;
begin
  update public.inspection_sessions set ended_at = now() where id = p_session and ended_at is null
  returning * into v_session;
  if found then
    perform realtime.send(jsonb_build_object('session', to_jsonb(v_session)), 'session_ended',
                          'inspect:' || v_session.project_id::text, true);
  end if;
end
$$;
revoke execute on function public.end_inspection_session(uuid) from public, anon, authenticated;
grant execute on function public.end_inspection_session(uuid) to service_role;

/**
 * Stores a batch of protocol events for a session, if its key is still live, trims the
 * source to its retention, and broadcasts the stored rows (with their seqs) to members.
 * Answers { stored, first_seq, last_seq }, or null when the key no longer opens the source
 * (revoked): then nothing is stored.
 */
create function public.ingest_inspection_events(p_key text, p_session uuid, p_events jsonb) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_source record;
  v_rows jsonb;
  v_count integer;
  v_first bigint;
  v_last bigint;
  v_max_events integer;
  v_max_days integer;
begin
  if jsonb_typeof(p_events) is distinct from 'array' then
    raise exception 'p_events must be an array' using errcode = '22023';
  end if;
  select * into v_source from public.inspection_source_for_key(p_key);
  if not found then
    return null;
  end if;
  perform 1 from public.inspection_sessions where id = p_session and source_id = v_source.source_id;
  if not found then
    raise exception 'Unknown session' using errcode = 'P0002';
  end if;
  v_count := jsonb_array_length(p_events);
  if v_count = 0 then
    return jsonb_build_object('stored', 0);
  end if;
  -- Numbering the batch locks the source's row: one source's batches are stored in turn.
  update public.inspection_sources set last_seq = last_seq + v_count
   where id = v_source.source_id
  returning last_seq - v_count + 1, last_seq, max_events, max_days into v_first, v_last, v_max_events, v_max_days;
  with inserted as (
    insert into public.inspection_events (source_id, seq, session_id, project_id, type, actor_id, root_id, body)
    select v_source.source_id, v_first + n - 1, p_session, v_source.project_id, e ->> 'type', e ->> 'sessionId',
           e ->> 'rootId', e
      from jsonb_array_elements(p_events) with ordinality as t (e, n)
    returning seq, body, received_at
  )
  select jsonb_agg(jsonb_build_object('seq', seq, 'session_id', p_session, 'received_at', received_at, 'body', body)
                   order by seq)
    into v_rows
    from inserted;
  update public.inspection_sessions
     set last_event_at = now(), event_count = event_count + v_count
   where id = p_session;
  -- Retention: the last max_events of the source, none older than max_days.
  delete from public.inspection_events
   where source_id = v_source.source_id and seq <= v_last - v_max_events;
  delete from public.inspection_events
   where source_id = v_source.source_id and received_at < now() - make_interval(days => v_max_days);
  delete from public.inspection_sessions
   where source_id = v_source.source_id and last_event_at < now() - make_interval(days => v_max_days);
  -- A batch too big for one realtime message goes as a notice; members read its rows back.
  if octet_length(v_rows::text) > 200000 then
    perform realtime.send(jsonb_build_object('source_id', v_source.source_id, 'session_id', p_session,
                                             'first_seq', v_first, 'last_seq', v_last), 'events_stored',
                          'inspect:' || v_source.project_id::text, true);
  else
    perform realtime.send(jsonb_build_object('source_id', v_source.source_id, 'events', v_rows), 'events',
                          'inspect:' || v_source.project_id::text, true);
  end if;
  return jsonb_build_object('stored', v_count, 'first_seq', v_first, 'last_seq', v_last);
end
$$;
revoke execute on function public.ingest_inspection_events(text, uuid, jsonb) from public, anon, authenticated;
grant execute on function public.ingest_inspection_events(text, uuid, jsonb) to service_role;
