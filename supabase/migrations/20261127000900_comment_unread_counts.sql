-- Unread comments per machine, for the room: for the signed-in person, on each machine of a
-- project they may read, how many threads have a comment by someone else after their read
-- mark (comment_reads), and how many of those comments mention them. Without a mark, what
-- came after they joined the project counts (a guest, who never joined, has nothing unread
-- until they read once). Deleted comments never count.
--
-- The count runs as the caller (security invoker), so the machines, comments and marks it
-- sees are those row level security lets them read: a machine they cannot read is never
-- in the answer. Anon gets nothing.
--
-- Live: two private broadcast channels tell a room that its counts moved, naming only the
-- machine (never the comment): `comment-activity:<project id>` when a comment is written,
-- edited or deleted (readers of the project receive), and `comment-reads:<user id>` when
-- that person's own read mark moves (only they receive). The room reads the counts again.

create function public.comment_unread_counts(p_project uuid)
returns table (machine_id uuid, threads integer, mentions integer)
language sql stable security invoker set search_path = '' as $$
  with me as (
    select auth.uid() as id
  ),
  since as (
    select m.id as machine_id,
           coalesce(r.read_at, pm.created_at) as read_from
      from public.machines m
      cross join me
      left join public.comment_reads r on r.machine_id = m.id and r.user_id = me.id
      left join public.project_members pm on pm.project_id = m.project_id and pm.user_id = me.id
     where m.project_id = p_project and me.id is not null
  )
  select s.machine_id,
         count(distinct c.thread_id)::integer as threads,
         count(*) filter (where (select id from me) = any (c.mentions))::integer as mentions
    from since s
    join public.comments c on c.machine_id = s.machine_id
   where s.read_from is not null
     and c.created_at > s.read_from
     and c.deleted_at is null
     and c.author is distinct from (select id from me)
   group by s.machine_id
$$;
revoke execute on function public.comment_unread_counts(uuid) from public, anon;
grant execute on function public.comment_unread_counts(uuid) to authenticated, service_role;

-- Realtime -----------------------------------------------------------------------------

/** Whether the caller may follow `comment-activity:<project>` (its readers) or `comment-reads:<user>` (that user). */
create function public.can_follow_comment_counts(p_topic text) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.can_read_project(public.topic_uuid(p_topic, 'comment-activity')), false)
      or coalesce(public.topic_uuid(p_topic, 'comment-reads') = auth.uid(), false)
$$;
revoke execute on function public.can_follow_comment_counts(text) from public;
grant execute on function public.can_follow_comment_counts(text) to anon, authenticated, service_role;

create policy "comment count channels: readers receive"
  on realtime.messages for select to anon, authenticated
  using (public.can_follow_comment_counts(realtime.topic()));

-- The triggers below (owned by this migration's role) write the message rows.
create policy "comment count channels: the triggers send"
  on realtime.messages for insert to current_user
  with check ((topic like 'comment-activity:%' or topic like 'comment-reads:%') and extension = 'broadcast');

/**
 * Says a machine's counts moved, naming only the machine: a comment written, edited or
 * deleted to its project's readers, a read mark moved to its owner alone.
 */
create function public.broadcast_comment_count_move() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_row jsonb := to_jsonb(new);
begin
  perform realtime.send(
    jsonb_build_object('machine_id', new.machine_id),
    case when tg_table_name = 'comments' then 'comment' else 'read' end,
    case when tg_table_name = 'comments' then 'comment-activity:' || (v_row ->> 'project_id')
         else 'comment-reads:' || (v_row ->> 'user_id') end,
    true);
  return null;
end
$$;
revoke execute on function public.broadcast_comment_count_move() from public, anon, authenticated;
create trigger comments_activity after insert or update on public.comments
  for each row execute function public.broadcast_comment_count_move();
create trigger comment_reads_broadcast after insert or update on public.comment_reads
  for each row execute function public.broadcast_comment_count_move();
