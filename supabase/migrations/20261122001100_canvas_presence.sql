-- Live canvas presence: one private realtime channel per machine, `canvas:<machine id>`,
-- carrying cursors and viewports (broadcast) and selections (presence). Only members of
-- the machine's project, any role, may join it, send on it or track presence in it:
-- viewers show their cursors too, but nothing on this channel edits the machine.

create function public.can_join_canvas(p_topic text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
declare
  v_machine uuid;
begin
  if p_topic is null or p_topic !~ '^canvas:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' then
    return false;
  end if;
  v_machine := substr(p_topic, 8)::uuid;
  return exists (
    select 1 from public.machines m
      join public.project_members pm on pm.project_id = m.project_id
     where m.id = v_machine and pm.user_id = auth.uid()
  );
end
$$;
revoke execute on function public.can_join_canvas(text) from public, anon;
grant execute on function public.can_join_canvas(text) to authenticated, service_role;

-- Joining and receiving.
create policy "canvas channels: project members receive"
  on realtime.messages for select to authenticated
  using (public.can_join_canvas(realtime.topic()));

-- Sending broadcasts (cursor, view) and tracking presence (selection).
create policy "canvas channels: project members send"
  on realtime.messages for insert to authenticated
  with check (public.can_join_canvas(realtime.topic()) and extension in ('broadcast', 'presence'));
