-- How many people are in each project, on the project row itself.
--
-- The projects list shows a member count per row and keeps it live. Listening to
-- project_members for that would leak: realtime cannot check row level security on a
-- DELETE (nor can hosted Supabase), so every subscriber would hear of every membership
-- removed anywhere, in projects they are not in. A count on projects travels instead as
-- an ordinary, RLS-checked update of a row the watcher may read.
--
-- Only the database writes the count: a trigger on project_members moves it by one per
-- membership added, removed or moved to another project (an increment under the row
-- lock, so concurrent joins stay exact). Every other write of member_count, by anyone,
-- the service role included, is refused.

alter table public.projects
  add column member_count integer not null default 0 check (member_count >= 0);
comment on column public.projects.member_count is
  'Memberships of this project, kept by the count_project_members trigger; not writable by anyone else.';

-- Set (transaction-locally) only while the counting trigger runs its own update, so the
-- guard below can tell that update from a caller's. Callers cannot set settings: the REST
-- API runs only their statements, never SET or set_config.
create function public.count_project_members() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_previous text := coalesce(current_setting('chartroom.counting_members', true), '');
begin
  perform set_config('chartroom.counting_members', 'on', true);
  if tg_op in ('INSERT', 'UPDATE') then
    update public.projects set member_count = member_count + 1 where id = new.project_id;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    -- On a project's own deletion the cascade finds no row left to update: nothing to count.
    update public.projects set member_count = member_count - 1 where id = old.project_id;
  end if;
  perform set_config('chartroom.counting_members', v_previous, true);
  return null;
end
$$;
revoke execute on function public.count_project_members() from public;

create trigger project_members_count after insert or delete on public.project_members
  for each row execute function public.count_project_members();
-- Owners of two projects may move a membership between them: it leaves one, joins the other.
create trigger project_members_count_move after update of project_id on public.project_members
  for each row when (old.project_id is distinct from new.project_id)
  execute function public.count_project_members();

-- Existing projects start from their memberships as they stand.
update public.projects p
   set member_count = (select count(*) from public.project_members m where m.project_id = p.id);

/** Settings other than name and description are the owners' (service role excepted); the member count is nobody's. */
create or replace function public.guard_project_update() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.member_count is distinct from old.member_count
     and coalesce(current_setting('chartroom.counting_members', true), '') <> 'on' then
    raise exception 'a project''s member count is kept by the database and cannot be set'
      using errcode = '42501';
  end if;
  if coalesce(auth.role(), '') <> 'service_role'
     and (new.visibility is distinct from old.visibility
          or new.owner_id is distinct from old.owner_id
          or new.share_token is distinct from old.share_token
          or new.id is distinct from old.id)
     and not public.is_project_owner(old.id) then
    raise exception 'only owners change a project''s visibility, owner or share link'
      using errcode = '42501';
  end if;
  if new.owner_id is distinct from old.owner_id
     and not exists (select 1 from public.project_members m
                      where m.project_id = new.id and m.user_id = new.owner_id and m.role = 'owner') then
    raise exception 'a project can only be transferred to one of its owners'
      using errcode = '23514', hint = 'Make that member an owner first.';
  end if;
  return new;
end
$$;

/** A new project starts with no members counted: its creator's membership, added next, counts one. */
create function public.guard_project_insert() returns trigger
language plpgsql set search_path = '' as $$
begin
  if new.member_count <> 0 then
    raise exception 'a project''s member count is kept by the database and cannot be set'
      using errcode = '42501';
  end if;
  return new;
end
$$;
revoke execute on function public.guard_project_insert() from public;

create trigger projects_guard_insert before insert on public.projects
  for each row execute function public.guard_project_insert();
