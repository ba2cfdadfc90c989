-- Follow mode on the inspection page: one private realtime channel per project,
-- `inspect-follow:<project id>`, carrying broadcasts only: "I present; I look at this
-- session, this actor, this position", "I stopped presenting", and a newcomer's "who
-- presents?". Nothing is stored.
--
-- Who: the project's members who are not guests, both to receive and to send (the same
-- people who watch inspect:<project>, minus guests). Outsiders and guests are refused when
-- they join; anon (no session) joins no private channel at all.

create function public.can_follow_inspection(p_topic text) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.is_project_member(public.topic_uuid(p_topic, 'inspect-follow')) and not public.is_guest(),
                  false)
$$;
revoke execute on function public.can_follow_inspection(text) from public, anon;
grant execute on function public.can_follow_inspection(text) to authenticated, service_role;

create policy "inspect follow channels: members receive"
  on realtime.messages for select to authenticated
  using (public.can_follow_inspection(realtime.topic()));

create policy "inspect follow channels: members send"
  on realtime.messages for insert to authenticated
  with check (extension = 'broadcast' and public.can_follow_inspection(realtime.topic()));
