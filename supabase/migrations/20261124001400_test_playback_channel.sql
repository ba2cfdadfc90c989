-- Playing a test path for the room: one private realtime channel per machine,
-- `test-play:<machine id>`, carrying broadcasts only: "I am playing this path, at this
-- step", "I stopped", and a newcomer's "what is playing?". Nothing is stored; the
-- channel carries no rows and no presence.
--
-- Who: whoever may read the machine's project receives (members, and anyone signed in for
-- a public project, who may watch the diagram anyway); members who are not guests send,
-- as they may save and run tests. Anon (no session) joins nothing: private channels need
-- a signed-in user.

create function public.test_play_project(p_topic text) returns uuid
language sql stable security definer set search_path = '' as $$
  select m.project_id from public.machines m where m.id = public.topic_uuid(p_topic, 'test-play')
$$;
revoke execute on function public.test_play_project(text) from public, anon, authenticated;

create function public.can_watch_test_play(p_topic text) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.can_read_project(public.test_play_project(p_topic)), false)
$$;
revoke execute on function public.can_watch_test_play(text) from public, anon;
grant execute on function public.can_watch_test_play(text) to authenticated, service_role;

create function public.can_send_test_play(p_topic text) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.is_project_member(public.test_play_project(p_topic)) and not public.is_guest(), false)
$$;
revoke execute on function public.can_send_test_play(text) from public, anon;
grant execute on function public.can_send_test_play(text) to authenticated, service_role;

create policy "test play channels: readers of the project receive"
  on realtime.messages for select to authenticated
  using (public.can_watch_test_play(realtime.topic()));

create policy "test play channels: members send"
  on realtime.messages for insert to authenticated
  with check (extension = 'broadcast' and public.can_send_test_play(realtime.topic()));
