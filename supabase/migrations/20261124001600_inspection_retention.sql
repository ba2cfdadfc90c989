-- Retention of an inspection source, set from the page: how many of its newest events are
-- kept (max_events) and for how many days (max_days).
--
-- Who may change it: the project's owners and editors, and only those two columns (a
-- column grant; RLS picks the rows). Viewers and guests read it; outsiders and anon see
-- no source at all (the select policy of 20261124000700). The service role keeps its
-- full rights. Lowering either bound trims the stored events at once, and every member's
-- page hears the new values on inspect:<project> (`source_updated`).

create policy "inspection sources: owners and editors set retention"
  on public.inspection_sources for update to authenticated
  using (public.can_edit_project(project_id))
  with check (public.can_edit_project(project_id));

grant update (max_events, max_days) on public.inspection_sources to authenticated;

/** After a change of retention: trim to the new bounds and tell the project's members. */
create function public.inspection_retention_changed() returns trigger
language plpgsql volatile security definer set search_path = '' as $$
begin
  if new.max_events is distinct from old.max_events or new.max_days is distinct from old.max_days then
    delete from public.inspection_events
     where source_id = new.id and seq <= new.last_seq - new.max_events;
    delete from public.inspection_events
     where source_id = new.id and received_at < now() - make_interval(days => new.max_days);
    delete from public.inspection_sessions
     where source_id = new.id and last_event_at < now() - make_interval(days => new.max_days);
    perform realtime.send(jsonb_build_object('source_id', new.id, 'max_events', new.max_events,
                                             'max_days', new.max_days),
                          'source_updated', 'inspect:' || new.project_id::text, true);
  end if;
  return null;
end
$$;
revoke execute on function public.inspection_retention_changed() from public, anon, authenticated;

create trigger inspection_sources_retention_changed
  after update of max_events, max_days on public.inspection_sources
  for each row execute function public.inspection_retention_changed();

-- The session's count as the database has it, in every stored batch's broadcast: a page
-- counting the events it received was off (it missed the first batch of a session that
-- it had not listed yet). Same function as in 20261124000700 otherwise.
create or replace function public.ingest_inspection_events(p_key text, p_session uuid, p_events jsonb) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_source record;
  v_rows jsonb;
  v_count integer;
  v_first bigint;
  v_last bigint;
  v_max_events integer;
  v_max_days integer;
  v_session_count bigint;
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
   where id = p_session
  returning event_count into v_session_count;
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
                                             'first_seq', v_first, 'last_seq', v_last,
                                             'session_event_count', v_session_count), 'events_stored',
                          'inspect:' || v_source.project_id::text, true);
  else
    perform realtime.send(jsonb_build_object('source_id', v_source.source_id, 'events', v_rows,
                                             'session', jsonb_build_object('id', p_session,
                                                                           'event_count', v_session_count)),
                          'events', 'inspect:' || v_source.project_id::text, true);
  end if;
  return jsonb_build_object('stored', v_count, 'first_seq', v_first, 'last_seq', v_last);
end
$$;
revoke execute on function public.ingest_inspection_events(text, uuid, jsonb) from public, anon, authenticated;
grant execute on function public.ingest_inspection_events(text, uuid, jsonb) to service_role;
