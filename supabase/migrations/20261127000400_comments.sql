-- Comments on a machine, pinned where they belong: a thread hangs on an anchor (a state
-- by its path, a transition by its id, a point "x,y" on the canvas, a timeline entry or a
-- simulation step by its seq) and holds comments, oldest first.
--
-- Who may do what: whoever may read the machine reads its threads and comments (a
-- public project's visitors and a link's guests too); members of any role, except guests
-- (anonymous sessions), start threads, reply, and resolve or reopen any thread; a
-- comment's author edits it and deletes it (a soft delete: the text goes, the thread and
-- its other comments stay). Everything asks the current membership, so a removed member
-- loses access at once while what they wrote stays readable.
--
-- Bad input, refused in PostgREST's error shape and with nothing written: a body of 0 or
-- more than 10,000 characters, a mention of someone who is not a member of the project,
-- more than 30 comments a minute from one person (PT429), an unknown anchor kind.
--
-- Live: every new or changed thread and comment is broadcast by a trigger on the private
-- channel `comments:<machine id>` (events `thread` and `comment`, the row as payload),
-- which readers of the machine may join (RLS on realtime.messages); nobody else sends there.

create table public.comment_threads (
  id uuid primary key default gen_random_uuid(),
  -- Copied from the machine so policies need no join.
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  anchor_kind text not null check (anchor_kind in ('state', 'transition', 'point', 'timeline', 'step')),
  anchor text not null check (char_length(anchor) between 1 and 1000),
  resolved_at timestamptz,
  resolved_by uuid references auth.users (id) on delete set null,
  created_by uuid references auth.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index comment_threads_machine_idx on public.comment_threads (machine_id, created_at);

create table public.comments (
  id uuid primary key default gen_random_uuid(),
  thread_id uuid not null references public.comment_threads (id) on delete cascade,
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  body text not null,
  mentions uuid[] not null default '{}' check (cardinality(mentions) <= 50),
  author uuid references auth.users (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  edited_at timestamptz,
  deleted_at timestamptz,
  check ((deleted_at is null and char_length(body) between 1 and 10000) or (deleted_at is not null and body = ''))
);
create index comments_thread_idx on public.comments (thread_id, created_at);
create index comments_machine_idx on public.comments (machine_id, created_at);
create index comments_author_idx on public.comments (author, created_at);

-- Checks ---------------------------------------------------------------------------------

/** A thread's project is its machine's; a resolve stamps who and when (the caller's word is ignored). */
create function public.comment_threads_check() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'INSERT' then
    if not exists (select 1 from public.machines m where m.id = new.machine_id and m.project_id = new.project_id) then
      raise exception 'machine not found' using errcode = 'PT404';
    end if;
    new.resolved_at := null;
    new.resolved_by := null;
    return new;
  end if;
  if new.resolved_at is not null and old.resolved_at is null then
    new.resolved_at := now();
    new.resolved_by := auth.uid();
  elsif new.resolved_at is null then
    new.resolved_by := null;
  else
    new.resolved_at := old.resolved_at;
    new.resolved_by := old.resolved_by;
  end if;
  new.updated_at := now();
  return new;
end
$$;

/**
 * A comment's thread, machine and project agree; its body is 1 to 10,000 characters; it
 * mentions only members of the project; one person writes at most 30 a minute. An edit
 * stamps edited_at; a delete empties the body and mentions, and is final.
 */
create function public.comments_check() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_outsider uuid;
begin
  if tg_op = 'INSERT' then
    if not exists (select 1 from public.comment_threads t
                    where t.id = new.thread_id and t.machine_id = new.machine_id and t.project_id = new.project_id) then
      raise exception 'thread not found' using errcode = 'PT404';
    end if;
    new.edited_at := null;
    new.deleted_at := null;
    new.created_at := now();
    if auth.uid() is not null and (
      select count(*) from public.comments c
       where c.author = auth.uid() and c.created_at > now() - interval '1 minute'
    ) >= 30 then
      raise exception 'too many comments: at most 30 a minute' using errcode = 'PT429',
        hint = 'Wait a moment and send again.';
    end if;
  else
    if old.deleted_at is not null then
      raise exception 'this comment was deleted' using errcode = 'PT409';
    end if;
    if new.deleted_at is not null then
      new.deleted_at := now();
      new.body := '';
      new.mentions := '{}';
      return new;
    end if;
    if new.body is distinct from old.body or new.mentions is distinct from old.mentions then
      new.edited_at := now();
    end if;
  end if;
  if new.body is null or char_length(new.body) not between 1 and 10000 then
    raise exception 'a comment is 1 to 10,000 characters (this one has %)', coalesce(char_length(new.body), 0)
      using errcode = '22023';
  end if;
  new.mentions := coalesce(new.mentions, '{}');
  if cardinality(new.mentions) > 50 then
    raise exception 'a comment mentions at most 50 people' using errcode = '22023';
  end if;
  select m into v_outsider from unnest(new.mentions) as m
   where not exists (select 1 from public.project_members pm where pm.project_id = new.project_id and pm.user_id = m)
   limit 1;
  if v_outsider is not null then
    raise exception 'only members of the project can be mentioned' using errcode = '22023',
      hint = 'Mention people by name from the list of members.';
  end if;
  return new;
end
$$;

revoke execute on function public.comment_threads_check() from public, anon, authenticated;
revoke execute on function public.comments_check() from public, anon, authenticated;

create trigger comment_threads_check before insert or update on public.comment_threads
  for each row execute function public.comment_threads_check();
create trigger comments_check before insert or update on public.comments
  for each row execute function public.comments_check();

-- Row level security and grants ------------------------------------------------------------

alter table public.comment_threads enable row level security;
alter table public.comments enable row level security;

create policy "comment threads: read with the machine"
  on public.comment_threads for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "comment threads: members resolve and reopen"
  on public.comment_threads for update to authenticated
  using (public.is_project_member(project_id) and not public.is_guest())
  with check (public.is_project_member(project_id) and not public.is_guest());
create policy "comment threads: service role"
  on public.comment_threads for all to service_role using (true) with check (true);

create policy "comments: read with the machine"
  on public.comments for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "comments: members write"
  on public.comments for insert to authenticated
  with check (public.is_project_member(project_id) and not public.is_guest() and author = auth.uid());
create policy "comments: the author edits and deletes"
  on public.comments for update to authenticated
  using (author = auth.uid() and public.is_project_member(project_id) and not public.is_guest())
  with check (author = auth.uid() and public.is_project_member(project_id) and not public.is_guest());
create policy "comments: service role"
  on public.comments for all to service_role using (true) with check (true);

-- Explicit grants: nothing by default; no client deletes a row (a comment's delete is soft),
-- and a thread is started only with its first comment, by start_comment_thread.
revoke all on public.comment_threads, public.comments from public, anon, authenticated;
grant select on public.comment_threads, public.comments to anon, authenticated;
grant update (resolved_at) on public.comment_threads to authenticated;
grant insert (thread_id, project_id, machine_id, body, mentions, author) on public.comments to authenticated;
grant update (body, mentions, deleted_at) on public.comments to authenticated;
grant select, insert, update, delete on public.comment_threads, public.comments to service_role;

/**
 * Starts a thread with its first comment, both or neither: a member (not a guest) of the
 * machine's project, with the comment checked as any other. Answers `{ thread, comment }`.
 */
create function public.start_comment_thread(
  p_machine uuid,
  p_anchor_kind text,
  p_anchor text,
  p_body text,
  p_mentions uuid[] default '{}'
) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_project uuid;
  v_thread public.comment_threads;
  v_comment public.comments;
begin
  if auth.uid() is null then
    raise exception 'sign in to comment' using errcode = '42501';
  end if;
  select m.project_id into v_project from public.machines m where m.id = p_machine;
  if v_project is null or not public.can_read_project(v_project) then
    raise exception 'machine not found' using errcode = 'PT404';
  end if;
  if public.is_guest() or not public.is_project_member(v_project) then
    raise exception 'only members of the project comment; guests read' using errcode = '42501';
  end if;
  if p_anchor_kind is null or p_anchor_kind not in ('state', 'transition', 'point', 'timeline', 'step') then
    raise exception 'a thread hangs on a state, a transition, a point, a timeline entry or a step' using errcode = '22023';
  end if;
  if p_anchor is null or char_length(p_anchor) not between 1 and 1000 then
    raise exception 'a thread needs an anchor of 1 to 1,000 characters' using errcode = '22023';
  end if;
  insert into public.comment_threads (project_id, machine_id, anchor_kind, anchor, created_by)
  values (v_project, p_machine, p_anchor_kind, p_anchor, auth.uid())
  returning * into v_thread;
  insert into public.comments (thread_id, project_id, machine_id, body, mentions, author)
  values (v_thread.id, v_project, p_machine, p_body, coalesce(p_mentions, '{}'), auth.uid())
  returning * into v_comment;
  return jsonb_build_object('thread', to_jsonb(v_thread), 'comment', to_jsonb(v_comment));
end
$$;
revoke execute on function public.start_comment_thread(uuid, text, text, text, uuid[]) from public, anon;
grant execute on function public.start_comment_thread(uuid, text, text, text, uuid[]) to authenticated, service_role;

-- Realtime: `comments:<machine id>` ----------------------------------------------------------

/** Whether the caller may follow `comments:<machine id>`: whoever may read the machine. */
create function public.can_follow_comments(p_topic text) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.can_read_machine(public.topic_uuid(p_topic, 'comments')), false)
$$;
revoke execute on function public.can_follow_comments(text) from public;
grant execute on function public.can_follow_comments(text) to anon, authenticated, service_role;

create policy "comment channels: readers of the machine receive"
  on realtime.messages for select to anon, authenticated
  using (public.can_follow_comments(realtime.topic()));

-- The broadcasting trigger (owned by this migration's role) writes the message row.
create policy "comment channels: the trigger sends"
  on realtime.messages for insert to current_user
  with check (topic like 'comments:%' and extension = 'broadcast');

/** Broadcasts the new or changed row on its machine's comment channel. */
create function public.broadcast_comment_change() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform realtime.send(
    to_jsonb(new),
    case when tg_table_name = 'comment_threads' then 'thread' else 'comment' end,
    'comments:' || new.machine_id::text,
    true);
  return null;
end
$$;
revoke execute on function public.broadcast_comment_change() from public, anon, authenticated;

create trigger comment_threads_broadcast after insert or update on public.comment_threads
  for each row execute function public.broadcast_comment_change();
create trigger comments_broadcast after insert or update on public.comments
  for each row execute function public.broadcast_comment_change();
