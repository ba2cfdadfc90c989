-- Closing a proposal: its author, and now any owner or editor of the project (not only an
-- owner), as for merging. A closed proposal's draft stays readable and takes no more ops
-- (machine_ops_draft_check); a merged or closed one is refused (PT409).

create or replace function public.close_proposal(p_proposal uuid) returns public.proposals
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.proposals := public.proposal_for_step(p_proposal);
begin
  if not ((v.author = auth.uid() and public.is_project_member(v.project_id))
          or (not public.is_guest() and public.can_edit_project(v.project_id))) then
    raise exception 'only the proposal''s author, owners and editors close it' using errcode = '42501';
  end if;
  if v.status in ('merged', 'closed') then
    raise exception 'this proposal is already %', v.status using errcode = 'PT409';
  end if;
  update public.proposals set status = 'closed', closed_at = now() where id = v.id returning * into v;
  return v;
end
$$;
revoke execute on function public.close_proposal(uuid) from public, anon;
grant execute on function public.close_proposal(uuid) to authenticated, service_role;
