-- Profiles, projects, members and invites: who may see and change what lives here,
-- in row level security, so every client (REST, realtime, storage) gets the same rules.
--
-- Roles in a project: owner (manages members, invites, settings), editor (writes
-- content), viewer (reads). Visibility: private (members only), link (members, and
-- anyone who opens the share link joins as a viewer), public (anyone, signed in or not,
-- reads it). A project always keeps at least one owner.

-- Membership checks ----------------------------------------------------------------
-- Security definer so policies on project_members can ask about project_members
-- without recursing into their own policies. search_path is empty: every name is
-- qualified.

create table public.projects (
  id uuid primary key default gen_random_uuid(),
  name text not null check (char_length(btrim(name)) between 1 and 120),
  description text not null default '' check (char_length(description) <= 2000),
  visibility text not null default 'private' check (visibility in ('private', 'link', 'public')),
  owner_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  share_token text not null unique default encode(extensions.gen_random_bytes(16), 'hex'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on column public.projects.owner_id is 'The creator; ownership itself lives in project_members (role owner).';

create table public.project_members (
  project_id uuid not null references public.projects (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null check (role in ('owner', 'editor', 'viewer')),
  joined_via text not null default 'created' check (joined_via in ('created', 'invite', 'link', 'added')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (project_id, user_id)
);
create index project_members_user_id_idx on public.project_members (user_id);

create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  display_name text not null check (char_length(btrim(display_name)) between 1 and 80),
  color text not null check (color ~ '^#[0-9a-f]{6}$'),
  avatar_path text check (avatar_path is null or char_length(avatar_path) <= 512),
  is_guest boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table public.project_invites (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references public.projects (id) on delete cascade,
  token text not null unique default encode(extensions.gen_random_bytes(18), 'hex'),
  role text not null default 'editor' check (role in ('editor', 'viewer')),
  expires_at timestamptz not null default now() + interval '7 days',
  max_uses integer check (max_uses is null or max_uses > 0),
  uses integer not null default 0 check (uses >= 0),
  created_by uuid not null default auth.uid() references auth.users (id) on delete cascade,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index project_invites_project_id_idx on public.project_invites (project_id);

create function public.project_role(p_project uuid) returns text
language sql stable security definer set search_path = '' as $$
  select m.role from public.project_members m
   where m.project_id = p_project and m.user_id = auth.uid()
$$;

create function public.is_project_member(p_project uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.project_members m
     where m.project_id = p_project and m.user_id = auth.uid()
  )
$$;

create function public.can_read_project(p_project uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from public.projects p
     where p.id = p_project
       and (p.visibility = 'public'
            or exists (select 1 from public.project_members m
                        where m.project_id = p.id and m.user_id = auth.uid()))
  )
$$;

create function public.can_edit_project(p_project uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.project_role(p_project) in ('owner', 'editor'), false)
$$;

create function public.is_project_owner(p_project uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select coalesce(public.project_role(p_project) = 'owner', false)
$$;

/** May the caller see this person's profile: themselves, someone they share a project with, or a member of a public project. */
create function public.can_see_profile(p_user uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select p_user = auth.uid()
      or exists (
        select 1 from public.project_members theirs
          join public.projects p on p.id = theirs.project_id
         where theirs.user_id = p_user
           and (p.visibility = 'public'
                or exists (select 1 from public.project_members mine
                            where mine.project_id = theirs.project_id and mine.user_id = auth.uid()))
      )
$$;

create function public.is_guest() returns boolean
language sql stable set search_path = '' as $$
  select coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false)
$$;

-- Bookkeeping triggers --------------------------------------------------------------

create function public.touch_updated_at() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.updated_at := now();
  return new;
end
$$;

create trigger projects_touch before update on public.projects
  for each row execute function public.touch_updated_at();
create trigger project_members_touch before update on public.project_members
  for each row execute function public.touch_updated_at();
create trigger profiles_touch before update on public.profiles
  for each row execute function public.touch_updated_at();

/** A stable colour per person, from a palette that reads on light and dark. */
create function public.palette_color(p_id uuid) returns text
language sql immutable set search_path = '' as $$
  select (array['#e5484d', '#f76b15', '#ffc53d', '#46a758', '#12a594', '#0090ff',
                '#3e63dd', '#8e4ec6', '#d6409f', '#978365'])[
    1 + abs(hashtext(p_id::text)) % 10]
$$;

/** Every auth user gets a profile at sign-up, named from metadata or the email. */
create function public.handle_new_user() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.profiles (id, display_name, color, is_guest)
  values (
    new.id,
    left(coalesce(
      nullif(btrim(new.raw_user_meta_data ->> 'display_name'), ''),
      nullif(split_part(coalesce(new.email, ''), '@', 1), ''),
      'Guest'), 80),
    public.palette_color(new.id),
    coalesce(new.is_anonymous, false))
  on conflict (id) do nothing;
  return new;
end
$$;

create trigger on_auth_user_created after insert on auth.users
  for each row execute function public.handle_new_user();

/** The creator of a project becomes its first owner. */
create function public.handle_new_project() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.project_members (project_id, user_id, role, joined_via)
  values (new.id, new.owner_id, 'owner', 'created');
  return new;
end
$$;

create trigger on_project_created after insert on public.projects
  for each row execute function public.handle_new_project();

/** Settings other than name and description are the owners' (service role excepted). */
create function public.guard_project_update() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
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

create trigger projects_guard before update on public.projects
  for each row execute function public.guard_project_update();

/**
 * A project always keeps an owner: its primary owner (projects.owner_id) is always an
 * owner member and cannot be demoted or removed; ownership moves by transferring
 * owner_id to another owner first.
 */
create function public.keep_an_owner() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if old.role = 'owner'
     and (tg_op = 'DELETE' or new.role <> 'owner' or new.user_id <> old.user_id or new.project_id <> old.project_id)
     and exists (select 1 from public.projects p where p.id = old.project_id and p.owner_id = old.user_id)
     -- Deleting the account itself cascades here (and to its projects): not a demotion.
     and exists (select 1 from auth.users u where u.id = old.user_id) then
    raise exception 'a project must keep its owner'
      using errcode = '23514', hint = 'Transfer the project to another owner first.';
  end if;
  if tg_op = 'DELETE' then
    return old;
  end if;
  return new;
end
$$;

create trigger project_members_keep_owner before update or delete on public.project_members
  for each row execute function public.keep_an_owner();

-- Grants --------------------------------------------------------------------------------
-- Hosted Supabase grants nothing by default on new objects in public: each role gets
-- exactly the statements the app makes, and row level security (below) decides which
-- rows. anon reads public projects and who is in them; signed-in people (guests
-- included) read and write through the policies; the service role maintains everything.
grant select on public.profiles to anon, authenticated;
grant update on public.profiles to authenticated;
grant select, insert, update, delete on public.profiles to service_role;
grant select on public.projects, public.project_members to anon;
grant select, insert, update, delete on public.projects, public.project_members to authenticated, service_role;
grant select, insert, update, delete on public.project_invites to authenticated, service_role;

-- Functions are executable by PUBLIC unless revoked. The policy helpers are the API
-- roles' (policies run them as the caller); trigger functions are nobody's to call.
revoke execute on function
  public.project_role(uuid), public.is_project_member(uuid), public.can_read_project(uuid),
  public.can_edit_project(uuid), public.is_project_owner(uuid), public.can_see_profile(uuid),
  public.is_guest(), public.palette_color(uuid), public.touch_updated_at(), public.handle_new_user(),
  public.handle_new_project(), public.guard_project_update(), public.keep_an_owner()
  from public;
grant execute on function public.can_read_project(uuid), public.can_see_profile(uuid) to anon, authenticated, service_role;
grant execute on function
  public.project_role(uuid), public.is_project_member(uuid), public.can_edit_project(uuid),
  public.is_project_owner(uuid), public.is_guest()
  to authenticated, service_role;

-- Row level security ------------------------------------------------------------------

alter table public.profiles enable row level security;
alter table public.projects enable row level security;
alter table public.project_members enable row level security;
alter table public.project_invites enable row level security;

-- profiles: read who you work with; write only yourself. Rows come from the sign-up trigger.
create policy "profiles: read people you share a project with"
  on public.profiles for select to anon, authenticated
  using (public.can_see_profile(id));
create policy "profiles: update your own"
  on public.profiles for update to authenticated
  using (id = auth.uid()) with check (id = auth.uid());

-- projects
-- owner_id = auth.uid() lets the creator read the row back in the insert's RETURNING,
-- before the trigger's membership row is visible; the primary owner is always a member.
create policy "projects: read as member or when public"
  on public.projects for select to anon, authenticated
  using (owner_id = auth.uid() or public.can_read_project(id));
create policy "projects: signed-in people (not guests) create their own"
  on public.projects for insert to authenticated
  with check (owner_id = auth.uid() and not public.is_guest());
create policy "projects: owners and editors update"
  on public.projects for update to authenticated
  using (public.can_edit_project(id)) with check (public.can_edit_project(id));
create policy "projects: owners delete"
  on public.projects for delete to authenticated
  using (public.is_project_owner(id));

-- project_members
create policy "members: read with the project"
  on public.project_members for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "members: owners add"
  on public.project_members for insert to authenticated
  with check (public.is_project_owner(project_id));
create policy "members: owners change roles"
  on public.project_members for update to authenticated
  using (public.is_project_owner(project_id)) with check (public.is_project_owner(project_id));
create policy "members: owners remove, anyone leaves"
  on public.project_members for delete to authenticated
  using (public.is_project_owner(project_id) or user_id = auth.uid());

-- project_invites: owners only; acceptance goes through the accept-invite function.
create policy "invites: owners read"
  on public.project_invites for select to authenticated
  using (public.is_project_owner(project_id));
create policy "invites: owners create"
  on public.project_invites for insert to authenticated
  with check (public.is_project_owner(project_id) and created_by = auth.uid());
create policy "invites: owners revoke"
  on public.project_invites for update to authenticated
  using (public.is_project_owner(project_id)) with check (public.is_project_owner(project_id));
create policy "invites: owners delete"
  on public.project_invites for delete to authenticated
  using (public.is_project_owner(project_id));

-- Share links: opening a link project's link makes the caller (guests included) a viewer.
create function public.join_shared_project(p_token text) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  v_project uuid;
begin
  if auth.uid() is null then
    raise exception 'sign in (a guest session is enough) to open a shared project'
      using errcode = '42501';
  end if;
  select p.id into v_project from public.projects p
   where p.share_token = p_token and p.visibility in ('link', 'public');
  if v_project is null then
    raise exception 'this share link is not valid' using errcode = 'P0002';
  end if;
  insert into public.project_members (project_id, user_id, role, joined_via)
  values (v_project, auth.uid(), 'viewer', 'link')
  on conflict (project_id, user_id) do nothing;
  return v_project;
end
$$;
-- Guests are signed in (role authenticated); anon has no session to join with.
revoke execute on function public.join_shared_project(text) from public, anon;
grant execute on function public.join_shared_project(text) to authenticated;

-- Realtime: the app watches these tables. Members' DELETE events carry the composite
-- primary key (project and user), enough to drop a member from every view.
alter publication supabase_realtime add table public.projects, public.project_members, public.profiles;

-- Avatars: public to read, each person writes only below a folder named by their id.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('avatars', 'avatars', true, 2097152, array['image/png', 'image/jpeg', 'image/webp', 'image/gif'])
on conflict (id) do nothing;

create policy "avatars: anyone reads"
  on storage.objects for select to anon, authenticated
  using (bucket_id = 'avatars');
create policy "avatars: upload into your own folder"
  on storage.objects for insert to authenticated
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "avatars: replace your own"
  on storage.objects for update to authenticated
  using (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text)
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "avatars: delete your own"
  on storage.objects for delete to authenticated
  using (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
