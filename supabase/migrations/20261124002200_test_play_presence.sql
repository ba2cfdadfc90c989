-- A played test path ends for everyone when its player leaves. A player tracks
-- presence on `test-play:<machine id>` while playing; when their last connection to the
-- channel goes (tab closed, connection lost), the server publishes the presence leave and
-- every other browser drops that person's play. Receiving presence is already allowed by
-- the channel's select policy (readers of the project); tracking is allowed to those who
-- may send plays: members of the project who are not guests.
--
-- No new table or function: a policy on realtime.messages only, for authenticated (anon
-- joins no private channel; service_role bypasses RLS).

create policy "test play channels: members track presence"
  on realtime.messages for insert to authenticated
  with check (extension = 'presence' and public.can_send_test_play(realtime.topic()));
