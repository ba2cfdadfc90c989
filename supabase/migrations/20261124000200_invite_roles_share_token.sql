-- Two holes an attacker found, closed in the database.
--
-- 1. accept_project_invite upgraded an existing member before it looked at max_uses: a
--    viewer accepting a used-up editor invite became an editor, and a demoted member could
--    re-accept their own spent invite. Now an invite never changes an existing member's
--    role, and a revoked, expired or used-up invite does nothing for anyone.
--
-- 2. projects.share_token was readable by every member through REST (and travelled in
--    every projects change). The share link is an owner's to hand out: the token now lives
--    in project_share_links, readable by the project's owners only (owned_share_tokens()).

create or replace function public.accept_project_invite(p_token text, p_user uuid)
returns table (project_id uuid, role text, already_member boolean)
language plpgsql security definer set search_path = '' as $$
declare
  v_invite public.project_invites%rowtype;
  v_current text;
begin
  select * into v_invite from public.project_invites i where i.token = p_token for update;
  if not found then
    raise exception 'invite_not_found' using errcode = 'P0002', detail = 'No invite has this token.';
  end if;
  if v_invite.revoked_at is not null then
    raise exception 'invite_revoked' using errcode = 'P0001', detail = 'This invite was revoked by a project owner.';
  end if;
  if v_invite.expires_at <= now() then
    raise exception 'invite_expired' using errcode = 'P0001', detail = 'This invite has expired.';
  end if;
  if v_invite.max_uses is not null and v_invite.uses >= v_invite.max_uses then
    raise exception 'invite_used_up' using errcode = 'P0001', detail = 'This invite has been used as many times as allowed.';
  end if;

  select m.role into v_current from public.project_members m
   where m.project_id = v_invite.project_id and m.user_id = p_user;
  if v_current is not null then
    -- Already in: the role stays what the owners made it, and no use is spent.
    return query select v_invite.project_id, v_current, true;
    return;
  end if;

  update public.project_invites i set uses = i.uses + 1 where i.id = v_invite.id;
  insert into public.project_members (project_id, user_id, role, joined_via)
  values (v_invite.project_id, p_user, v_invite.role, 'invite');
  return query select v_invite.project_id, v_invite.role, false;
end
$$;
revoke execute on function public.accept_project_invite(text, uuid) from public, anon, authenticated;
grant execute on function public.accept_project_invite(text, uuid) to service_role;

-- The share link's token moves out of projects into a table only owners read. Every
-- reader of a project (members, public readers) reads the whole projects row, and the
-- realtime payloads of projects changes carry no token.

create table public.project_share_links (
  project_id uuid primary key references public.projects (id) on delete cascade,
  token text not null unique default encode(extensions.gen_random_bytes(16), 'hex'),
  created_at timestamptz not null default now()
);
comment on table public.project_share_links is 'The share link token of each project; owners read it, join_shared_project checks it.';

insert into public.project_share_links (project_id, token)
select p.id, p.share_token from public.projects p;

alter table public.project_share_links enable row level security;
revoke all on public.project_share_links from anon, authenticated;
grant select on public.project_share_links to authenticated;
grant select, insert, update, delete on public.project_share_links to service_role;
-- anon: no grant, no policy. authenticated: owners read theirs; nobody writes directly
-- (the link is made with the project). service_role bypasses RLS.
create policy "share links: owners read"
  on public.project_share_links for select to authenticated
  using (public.is_project_owner(project_id));

/** Every new project gets its share link. */
create function public.handle_new_project_share_link() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.project_share_links (project_id) values (new.id);
  return new;
end
$$;
revoke execute on function public.handle_new_project_share_link() from public, anon, authenticated;

create trigger on_project_created_share_link after insert on public.projects
  for each row execute function public.handle_new_project_share_link();

create or replace function public.join_shared_project(p_token text) returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  v_project uuid;
begin
  if auth.uid() is null then
    raise exception 'sign in (a guest session is enough) to open a shared project'
      using errcode = '42501';
  end if;
  select p.id into v_project
    from public.project_share_links l join public.projects p on p.id = l.project_id
   where l.token = p_token and p.visibility in ('link', 'public');
  if v_project is null then
    raise exception 'this share link is not valid' using errcode = 'P0002';
  end if;
  insert into public.project_members (project_id, user_id, role, joined_via)
  values (v_project, auth.uid(), 'viewer', 'link')
  on conflict (project_id, user_id) do nothing;
  return v_project;
end
$$;
revoke execute on function public.join_shared_project(text) from public, anon;
grant execute on function public.join_shared_project(text) to authenticated, service_role;

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
          or new.id is distinct from old.id)
     and not public.is_project_owner(old.id) then
    raise exception 'only owners change a project''s visibility or owner'
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

alter table public.projects drop column share_token;

/** The share tokens of the projects the caller owns (one project, or all of them). */
create function public.owned_share_tokens(p_project uuid default null)
returns table (project_id uuid, share_token text)
language sql stable security invoker set search_path = '' as $$
  select l.project_id, l.token
    from public.project_share_links l
   where p_project is null or l.project_id = p_project
$$;
revoke execute on function public.owned_share_tokens(uuid) from public, anon;
grant execute on function public.owned_share_tokens(uuid) to authenticated, service_role;
