-- Project channels are private, and removals travel only to people who may know of them.
--
-- Channels (RLS on realtime.messages, checked when a client joins and again when its
-- access changes):
--   room:<project>      read: whoever may read the project (members; anyone for a public
--                       project); write: presence only, members only.
--   machines:<project>  read: whoever may read the project; nobody writes.
--   projects:<user>     read: that user alone; nobody writes.
--
-- Deletes. Realtime cannot check row level security on a DELETE (hosted Supabase cannot
-- either), so every subscriber to a table's deletes received the deleted row's key:
-- which project lost which member, machine and project ids. The app still needs these
-- tables' inserts and updates (RLS-checked), so they stay published, but each gets a
-- replica identity of its own: a random `realtime_key` that appears nowhere else, so a
-- DELETE event names nothing anyone can recognise. The removal facts the app needs go on
-- the private channels above, from triggers:
--   member_removed {project_id, user_id, committed_at}   on room:<project>
--   membership_removed {project_id}        on projects:<user>
--   project_deleted {id, committed_at}     on room:<project>
--   machine_deleted {id, project_id}       on machines:<project>
-- The triggers are security definer: realtime.send writes realtime.messages as the
-- function's owner, whatever the caller may write there.
--
-- Access changes: removing a member or changing their role notifies
-- `realtime_access_changed` with the user's id; the embedded realtime server re-checks
-- that user's private channels at once and ends the ones they may no longer read.
-- Hosted Realtime does not listen: there a removed member's joined channels last until
-- the client rejoins or refreshes its token (RLS still stops every REST read and write,
-- and every postgres change, at once).

-- Topics ------------------------------------------------------------------------------

/** The uuid after `<prefix>:` in a topic, or null. */
create function public.topic_uuid(p_topic text, p_prefix text) returns uuid
language sql immutable set search_path = '' as $$
  select case
    when p_topic ~ ('^' || p_prefix || ':[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')
      then substr(p_topic, char_length(p_prefix) + 2)::uuid
  end
$$;
revoke execute on function public.topic_uuid(text, text) from public;
grant execute on function public.topic_uuid(text, text) to anon, authenticated, service_role;

create function public.can_read_project_topic(p_topic text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
declare
  v_id uuid;
begin
  v_id := coalesce(public.topic_uuid(p_topic, 'room'), public.topic_uuid(p_topic, 'machines'));
  if v_id is not null then
    return public.can_read_project(v_id);
  end if;
  v_id := public.topic_uuid(p_topic, 'projects');
  return v_id is not null and v_id = auth.uid();
end
$$;
revoke execute on function public.can_read_project_topic(text) from public;
grant execute on function public.can_read_project_topic(text) to anon, authenticated, service_role;

create function public.can_track_in_room(p_topic text) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.is_project_member(public.topic_uuid(p_topic, 'room')), false)
$$;
revoke execute on function public.can_track_in_room(text) from public, anon;
grant execute on function public.can_track_in_room(text) to authenticated, service_role;

create policy "project channels: readers receive"
  on realtime.messages for select to anon, authenticated
  using (public.can_read_project_topic(realtime.topic()));
create policy "room channels: members track presence"
  on realtime.messages for insert to authenticated
  with check (extension = 'presence' and public.can_track_in_room(realtime.topic()));

-- Replica identities that name nothing ---------------------------------------------

alter table public.projects add column realtime_key uuid not null default gen_random_uuid();
create unique index projects_realtime_key_idx on public.projects (realtime_key);
alter table public.projects replica identity using index projects_realtime_key_idx;
comment on column public.projects.realtime_key is 'Replica identity only: a DELETE event carries this, never the id.';

alter table public.project_members add column realtime_key uuid not null default gen_random_uuid();
create unique index project_members_realtime_key_idx on public.project_members (realtime_key);
alter table public.project_members replica identity using index project_members_realtime_key_idx;
comment on column public.project_members.realtime_key is 'Replica identity only: a DELETE event carries this, never the project or user.';

alter table public.machines add column realtime_key uuid not null default gen_random_uuid();
create unique index machines_realtime_key_idx on public.machines (realtime_key);
alter table public.machines replica identity using index machines_realtime_key_idx;
comment on column public.machines.realtime_key is 'Replica identity only: a DELETE event carries this, never the id.';
-- The published column list must cover the replica identity.
alter publication supabase_realtime drop table public.machines;
alter publication supabase_realtime add table public.machines
  (id, project_id, name, version, created_by, created_at, updated_at, realtime_key);

-- Removal facts and access changes -------------------------------------------------------

create function public.announce_member_change() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op = 'DELETE' then
    perform realtime.send(jsonb_build_object('project_id', old.project_id, 'user_id', old.user_id, 'committed_at', now()),
                          'member_removed', 'room:' || old.project_id::text, true);
    perform realtime.send(jsonb_build_object('project_id', old.project_id),
                          'membership_removed', 'projects:' || old.user_id::text, true);
    perform pg_notify('realtime_access_changed', old.user_id::text);
  elsif new.role is distinct from old.role or new.project_id is distinct from old.project_id then
    perform pg_notify('realtime_access_changed', new.user_id::text);
  end if;
  return null;
end
$$;
revoke execute on function public.announce_member_change() from public, anon, authenticated;

create trigger project_members_announce after update or delete on public.project_members
  for each row execute function public.announce_member_change();

create function public.announce_project_deleted() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform realtime.send(jsonb_build_object('id', old.id, 'committed_at', now()), 'project_deleted', 'room:' || old.id::text, true);
  return null;
end
$$;
revoke execute on function public.announce_project_deleted() from public, anon, authenticated;

create trigger projects_announce_delete after delete on public.projects
  for each row execute function public.announce_project_deleted();

create function public.announce_machine_deleted() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform realtime.send(jsonb_build_object('id', old.id, 'project_id', old.project_id),
                        'machine_deleted', 'machines:' || old.project_id::text, true);
  return null;
end
$$;
revoke execute on function public.announce_machine_deleted() from public, anon, authenticated;

create trigger machines_announce_delete after delete on public.machines
  for each row execute function public.announce_machine_deleted();
