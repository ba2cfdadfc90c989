-- A simulation's log reaches its followers as one private broadcast per event, sent by
-- send_simulation_event when its transaction commits, on `sim-log:<simulation id>`.
--
-- Before: followers subscribed to postgres changes of simulation_events, so every event
-- waited for logical decoding and a row check per follower identity before it left
-- (bench/sections/simulation-live.ts measures the path). A private channel is authorised
-- once, when it is joined, by row level security on realtime.messages (whoever may read
-- the simulation's project, as the table's own read policy says); the realtime server
-- checks joined channels again when a person's membership changes.
--
-- simulation_events stays in the postgres-changes publication: the timeline follows a
-- machine's events through it (src/adapters/supabase/timeline.ts).

/** Whether the caller may follow `sim-log:<simulation id>`: whoever may read its project. */
create function public.can_follow_simulation_log(p_topic text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
declare
  v_project uuid;
begin
  if p_topic is null or p_topic !~ '^sim-log:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' then
    return false;
  end if;
  select s.project_id into v_project from public.simulations s where s.id = substr(p_topic, 9)::uuid;
  return v_project is not null and coalesce(public.can_read_project(v_project), false);
end
$$;
revoke execute on function public.can_follow_simulation_log(text) from public;
grant execute on function public.can_follow_simulation_log(text) to anon, authenticated, service_role;

-- Joining and receiving. No insert policy for clients: only the send function writes here.
create policy "simulation log channels: readers of the project receive"
  on realtime.messages for select to anon, authenticated
  using (public.can_follow_simulation_log(realtime.topic()));

-- The send function (owned by this migration's role) writes the broadcast row; the policy
-- lets it do so where that role does not bypass row level security.
create policy "simulation log channels: the send function sends"
  on realtime.messages for insert to current_user
  with check (topic like 'sim-log:%' and extension = 'broadcast');

/**
 * As before (20261124000300_simulations.sql), and the stored entry is broadcast on
 * `sim-log:<simulation id>` as `{ entries: [{ seq, kind, type, payload, guards, sender }] }`
 * (at most 64 KB of payload: well under a realtime message's 256 KB).
 */
create or replace function public.send_simulation_event(
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
  perform realtime.send(
    jsonb_build_object('entries', jsonb_build_array(jsonb_build_object(
      'seq', v_seq, 'kind', p_kind, 'type', p_type, 'payload', v_payload, 'guards', v_guards, 'sender', auth.uid()))),
    'entries', 'sim-log:' || v_sim.id::text, true);
  return jsonb_build_object('simulation_id', v_sim.id, 'seq', v_seq);
end
$$;
revoke execute on function public.send_simulation_event(uuid, text, text, jsonb, jsonb) from public, anon;
grant execute on function public.send_simulation_event(uuid, text, text, jsonb, jsonb) to authenticated, service_role;
