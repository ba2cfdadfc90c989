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
