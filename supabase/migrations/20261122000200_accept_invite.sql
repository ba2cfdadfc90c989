-- Accepting an invite, atomically: the invite row is locked, checked (revoked, expired,
-- used up), its use counted and the membership written in one transaction. Only the
-- accept-invite edge function (service role) calls it; it names the user explicitly
-- because the function has already verified who is calling.

create function public.accept_project_invite(p_token text, p_user uuid)
returns table (project_id uuid, role text, already_member boolean)
language plpgsql security definer set search_path = '' as $$
declare
  v_invite public.project_invites%rowtype;
  v_current text;
  v_rank constant jsonb := '{"viewer": 1, "editor": 2, "owner": 3}';
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

  select m.role into v_current from public.project_members m
   where m.project_id = v_invite.project_id and m.user_id = p_user;
  if v_current is not null then
    -- Already in: never downgrade, never spend a use.
    if (v_rank ->> v_invite.role)::int > (v_rank ->> v_current)::int then
      update public.project_members m set role = v_invite.role
       where m.project_id = v_invite.project_id and m.user_id = p_user;
      v_current := v_invite.role;
    end if;
    return query select v_invite.project_id, v_current, true;
    return;
  end if;

  if v_invite.max_uses is not null and v_invite.uses >= v_invite.max_uses then
    raise exception 'invite_used_up' using errcode = 'P0001', detail = 'This invite has been used as many times as allowed.';
  end if;
  update public.project_invites i set uses = i.uses + 1 where i.id = v_invite.id;
  insert into public.project_members (project_id, user_id, role, joined_via)
  values (v_invite.project_id, p_user, v_invite.role, 'invite');
  return query select v_invite.project_id, v_invite.role, false;
end
$$;

revoke execute on function public.accept_project_invite(text, uuid) from public, anon, authenticated;
grant execute on function public.accept_project_invite(text, uuid) to service_role;
