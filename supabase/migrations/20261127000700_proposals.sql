-- Proposals: a change to a machine drafted on the side, reviewed, then merged.
--
-- A proposal's draft is a machine row (`machines.draft_of` names the machine it proposes a
-- change to), so the whole machine page, its op log, live channel and tools work on it
-- unchanged. `propose_change` forks: the draft starts as the target's definition at the
-- log position the proposer had (`base_seq`), ids kept, so ops on either side address the
-- same states. Merging commits the draft's net change (computed by the client from the
-- target at `base_seq` and the draft now, src/lib/proposals) to the target through
-- commit_machine_ops, on top of whatever happened meanwhile: the server-ordered log and
-- resolveOp rebase it, and what no longer applies is read back from the log and listed.
--
-- Who may do what (every check asks the current membership, so a removed member loses
-- access at once while their drafts stay readable to the project):
-- - whoever may read the project reads its proposals, reviews and drafts (a draft is
--   visible from the start: the project sees work in progress; the machine list hides
--   drafts, the target's Proposals panel lists them);
-- - owners and editors (not guests) propose a change;
-- - a draft's log takes ops only from its author and the people they invite (owners or
--   editors of the project), and none once the proposal is merged or closed;
-- - the author requests review (from draft or changes requested);
-- - owners and editors other than the author approve or request changes on a proposal
--   in review (or already reviewed);
-- - owners and editors merge a proposal in review or approved (not one with changes
--   requested), once;
-- - the author or an owner closes a proposal that is not merged.
-- Discussion happens on the draft's comment threads (the draft is a machine): viewers
-- comment there.
--
-- Bad input, refused in PostgREST's error shape with nothing written: a title of 0 or
-- more than 120 characters (22023), a base seq outside the target's log (22023), a
-- proposal or machine the caller cannot see (PT404), a step its status does not allow
-- (PT409), no rights (42501).

alter table public.machines add column draft_of uuid references public.machines (id) on delete cascade;
create index machines_draft_of_idx on public.machines (draft_of) where draft_of is not null;
comment on column public.machines.draft_of is 'Set for a proposal''s draft: the machine it proposes a change to.';

create table public.proposals (
  id uuid primary key default gen_random_uuid(),
  -- Copied from the target so policies need no join.
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  draft_id uuid not null unique references public.machines (id) on delete cascade,
  title text not null check (char_length(btrim(title)) between 1 and 120),
  author uuid references auth.users (id) on delete set null,
  collaborators uuid[] not null default '{}' check (cardinality(collaborators) <= 50),
  base_seq bigint not null check (base_seq >= 0),
  status text not null default 'draft'
    check (status in ('draft', 'in_review', 'changes_requested', 'approved', 'merged', 'closed')),
  review_requested_at timestamptz,
  merged_by uuid references auth.users (id) on delete set null,
  merged_at timestamptz,
  -- The merge's batch in the target's log (first..last seq); null when it changed nothing.
  merged_first_seq bigint,
  merged_last_seq bigint,
  merged_ops integer,
  closed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  realtime_key uuid not null default gen_random_uuid()
);
create index proposals_machine_idx on public.proposals (machine_id, created_at);
create index proposals_project_idx on public.proposals (project_id);
create unique index proposals_realtime_key_idx on public.proposals (realtime_key);
alter table public.proposals replica identity using index proposals_realtime_key_idx;

create table public.proposal_reviews (
  id uuid primary key default gen_random_uuid(),
  proposal_id uuid not null references public.proposals (id) on delete cascade,
  project_id uuid not null references public.projects (id) on delete cascade,
  machine_id uuid not null references public.machines (id) on delete cascade,
  reviewer uuid references auth.users (id) on delete set null,
  verdict text not null check (verdict in ('approved', 'changes_requested')),
  created_at timestamptz not null default now()
);
create index proposal_reviews_proposal_idx on public.proposal_reviews (proposal_id, created_at);

create trigger proposals_touch before update on public.proposals
  for each row execute function public.touch_updated_at();

-- Row level security and grants: clients read; every write goes through the functions below.

alter table public.proposals enable row level security;
alter table public.proposal_reviews enable row level security;

create policy "proposals: read with the project"
  on public.proposals for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "proposals: service role"
  on public.proposals for all to service_role using (true) with check (true);
create policy "proposal reviews: read with the project"
  on public.proposal_reviews for select to anon, authenticated
  using (public.can_read_project(project_id));
create policy "proposal reviews: service role"
  on public.proposal_reviews for all to service_role using (true) with check (true);

revoke all on public.proposals, public.proposal_reviews from public, anon, authenticated;
grant select on public.proposals, public.proposal_reviews to anon, authenticated;
grant select, insert, update, delete on public.proposals, public.proposal_reviews to service_role;

-- A draft is renamed or deleted only by its author or an owner (the machines policies
-- let any editor; these narrow them for drafts).
create policy "machines: a draft is its author's to rename"
  on public.machines as restrictive for update to authenticated
  using (draft_of is null or public.is_project_owner(project_id)
         or exists (select 1 from public.proposals p where p.draft_id = machines.id and p.author = auth.uid()));
create policy "machines: a draft is its author's to delete"
  on public.machines as restrictive for delete to authenticated
  using (draft_of is null or public.is_project_owner(project_id)
         or exists (select 1 from public.proposals p where p.draft_id = machines.id and p.author = auth.uid()));

-- Who writes a draft's log ----------------------------------------------------------------

/**
 * After each append (one statement per batch): a draft's log takes ops only from the
 * proposal's author and invited collaborators, while they are owners or editors of the
 * project, and none once it is merged or closed. Raising here undoes the whole append,
 * broadcast included. The service role is trusted.
 */
create function public.machine_ops_draft_check() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_proposal public.proposals;
begin
  if coalesce(auth.role(), '') = 'service_role' then
    return null;
  end if;
  select p.* into v_proposal
    from public.proposals p
   where p.draft_id in (select distinct n.machine_id from new_ops n)
   limit 1;
  if v_proposal.id is null then
    return null;
  end if;
  if v_proposal.status in ('merged', 'closed') then
    raise exception 'this proposal is %: its draft no longer changes', v_proposal.status using errcode = 'PT409';
  end if;
  if not (auth.uid() = v_proposal.author or auth.uid() = any (v_proposal.collaborators))
     or not public.can_edit_project(v_proposal.project_id) then
    raise exception 'only the proposal''s author and the people they invite edit this draft'
      using errcode = '42501';
  end if;
  return null;
end
$$;
revoke execute on function public.machine_ops_draft_check() from public, anon, authenticated;
create trigger machine_ops_draft_check after insert on public.machine_ops
  referencing new table as new_ops
  for each statement execute function public.machine_ops_draft_check();

-- Steps --------------------------------------------------------------------------------

/** The proposal, locked, if the caller may read it; PT404 otherwise (ids do not leak). */
create function public.proposal_for_step(p_proposal uuid) returns public.proposals
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.proposals;
begin
  if auth.uid() is null then
    raise exception 'sign in to work on proposals' using errcode = '42501';
  end if;
  select * into v from public.proposals p where p.id = p_proposal for update;
  if v.id is null or not public.can_read_project(v.project_id) then
    raise exception 'proposal not found' using errcode = 'PT404';
  end if;
  return v;
end
$$;
revoke execute on function public.proposal_for_step(uuid) from public, anon, authenticated;

/** Refuses callers who are not owners or editors (guests included), with `what` they tried. */
create function public.proposal_require_editor(p_project uuid, p_what text) returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  if public.is_guest() or not public.can_edit_project(p_project) then
    raise exception 'only owners and editors %', p_what using errcode = '42501';
  end if;
end
$$;
revoke execute on function public.proposal_require_editor(uuid, text) from public, anon, authenticated;

/** Refuses callers other than the proposal's author (while an owner or editor), with `what` they tried. */
create function public.proposal_require_author(p public.proposals, p_what text) returns void
language plpgsql stable security definer set search_path = '' as $$
begin
  if p.author is distinct from auth.uid() or not public.can_edit_project(p.project_id) then
    raise exception 'only the proposal''s author %', p_what using errcode = '42501';
  end if;
end
$$;
revoke execute on function public.proposal_require_author(public.proposals, text) from public, anon, authenticated;

/**
 * Forks `p_machine` into a draft: a new machine whose log starts with `p_definition` (the
 * target's definition after op `p_base_seq`, as the proposer's page had it, ids kept) and
 * a proposal linking the two. Owners and editors, not guests; not a draft of a draft.
 * Answers the proposal row.
 */
create function public.propose_change(
  p_machine uuid,
  p_title text,
  p_definition jsonb,
  p_base_seq bigint
) returns public.proposals
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_target public.machines;
  v_head bigint;
  v_title text := btrim(coalesce(p_title, ''));
  v_draft uuid;
  v_proposal public.proposals;
begin
  if auth.uid() is null then
    raise exception 'sign in to propose a change' using errcode = '42501';
  end if;
  select * into v_target from public.machines m where m.id = p_machine;
  if v_target.id is null or not public.can_read_project(v_target.project_id) then
    raise exception 'machine not found' using errcode = 'PT404';
  end if;
  perform public.proposal_require_editor(v_target.project_id, 'propose changes');
  if v_target.draft_of is not null then
    raise exception 'this machine is a proposal''s draft: propose changes to the machine itself'
      using errcode = '22023';
  end if;
  if char_length(v_title) not between 1 and 120 then
    raise exception 'a proposal''s title is 1 to 120 characters (this one has %)', char_length(v_title)
      using errcode = '22023';
  end if;
  if p_definition is null or jsonb_typeof(p_definition) <> 'object'
     or jsonb_typeof(p_definition -> 'states') is distinct from 'object'
     or jsonb_typeof(p_definition -> 'root') is distinct from 'string' then
    raise exception 'a proposal starts from the machine''s definition (an object with root and states)'
      using errcode = '22023';
  end if;
  select greatest(coalesce(max(o.seq), 0), v_target.version) into v_head
    from public.machine_ops o where o.machine_id = p_machine;
  if p_base_seq is null or p_base_seq < 0 or p_base_seq > v_head then
    raise exception 'base seq % is outside the machine''s log (0 to %)', p_base_seq, v_head using errcode = '22023';
  end if;
  insert into public.machines (project_id, name, definition, created_by, draft_of)
  values (v_target.project_id, v_title, p_definition, auth.uid(), p_machine)
  returning id into v_draft;
  insert into public.proposals (project_id, machine_id, draft_id, title, author, base_seq)
  values (v_target.project_id, p_machine, v_draft, v_title, auth.uid(), p_base_seq)
  returning * into v_proposal;
  return v_proposal;
end
$$;
revoke execute on function public.propose_change(uuid, text, jsonb, bigint) from public, anon;
grant execute on function public.propose_change(uuid, text, jsonb, bigint) to authenticated, service_role;

/** The author invites an owner or editor of the project to edit the draft with them. */
create function public.invite_to_proposal(p_proposal uuid, p_user uuid) returns public.proposals
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.proposals := public.proposal_for_step(p_proposal);
begin
  perform public.proposal_require_author(v, 'invites people to its draft');
  if v.status in ('merged', 'closed') then
    raise exception 'this proposal is %: its draft no longer changes', v.status using errcode = 'PT409';
  end if;
  if not exists (select 1 from public.project_members pm
                  where pm.project_id = v.project_id and pm.user_id = p_user and pm.role in ('owner', 'editor')) then
    raise exception 'only owners and editors of the project can be invited to a draft' using errcode = '22023';
  end if;
  if p_user = v.author or p_user = any (v.collaborators) then
    return v;
  end if;
  update public.proposals set collaborators = collaborators || p_user where id = v.id returning * into v;
  return v;
end
$$;
revoke execute on function public.invite_to_proposal(uuid, uuid) from public, anon;
grant execute on function public.invite_to_proposal(uuid, uuid) to authenticated, service_role;

/** The author asks the project to review: from a draft, or after changes were requested. */
create function public.request_proposal_review(p_proposal uuid) returns public.proposals
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.proposals := public.proposal_for_step(p_proposal);
begin
  perform public.proposal_require_author(v, 'requests review');
  if v.status not in ('draft', 'changes_requested') then
    raise exception 'this proposal is %: review is requested from a draft or after changes were requested',
      replace(v.status, '_', ' ') using errcode = 'PT409';
  end if;
  update public.proposals set status = 'in_review', review_requested_at = now() where id = v.id returning * into v;
  return v;
end
$$;
revoke execute on function public.request_proposal_review(uuid) from public, anon;
grant execute on function public.request_proposal_review(uuid) to authenticated, service_role;

/**
 * An owner or editor other than the author approves (`approved`) or requests changes
 * (`changes_requested`) on a proposal under review; the latest verdict is its status.
 */
create function public.review_proposal(p_proposal uuid, p_verdict text) returns public.proposals
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.proposals := public.proposal_for_step(p_proposal);
begin
  perform public.proposal_require_editor(v.project_id, 'review proposals');
  if p_verdict is null or p_verdict not in ('approved', 'changes_requested') then
    raise exception 'a review approves or requests changes (verdict "approved" or "changes_requested")'
      using errcode = '22023';
  end if;
  if v.author = auth.uid() then
    raise exception 'the author does not review their own proposal' using errcode = '42501';
  end if;
  if v.status not in ('in_review', 'approved', 'changes_requested') then
    raise exception 'this proposal is %: only a proposal under review is reviewed', v.status using errcode = 'PT409';
  end if;
  insert into public.proposal_reviews (proposal_id, project_id, machine_id, reviewer, verdict)
  values (v.id, v.project_id, v.machine_id, auth.uid(), p_verdict);
  update public.proposals set status = p_verdict where id = v.id returning * into v;
  return v;
end
$$;
revoke execute on function public.review_proposal(uuid, text) from public, anon;
grant execute on function public.review_proposal(uuid, text) to authenticated, service_role;

/**
 * Merges a proposal: appends `p_ops` (its net change, computed by the client) to the
 * target's log through commit_machine_ops, at the head, and records who merged it and
 * where, in one transaction. Owners and editors; a proposal in review or approved; once
 * (the row is locked, so two merges at once serialise and the second is refused). No ops
 * (the draft changed nothing) records the merge without an append. The batch's client id
 * is `proposal:<id>`, which is how the timeline names the merge. Answers the proposal row.
 */
create function public.merge_proposal(p_proposal uuid, p_batch_id uuid, p_ops jsonb) returns public.proposals
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.proposals := public.proposal_for_step(p_proposal);
  v_commit jsonb;
  v_count integer;
begin
  perform public.proposal_require_editor(v.project_id, 'merge proposals');
  if v.status = 'merged' then
    raise exception 'this proposal is already merged' using errcode = 'PT409';
  end if;
  if v.status not in ('in_review', 'approved') then
    raise exception 'this proposal is %: a proposal is merged once it is in review or approved',
      replace(v.status, '_', ' ') using errcode = 'PT409';
  end if;
  if p_ops is null or jsonb_typeof(p_ops) <> 'array' then
    raise exception 'ops must be an array (empty when the draft changed nothing)' using errcode = '22023';
  end if;
  v_count := jsonb_array_length(p_ops);
  if v_count > 0 then
    v_commit := public.commit_machine_ops(v.machine_id, 'proposal:' || v.id::text, p_batch_id, p_ops);
  end if;
  update public.proposals
     set status = 'merged', merged_by = auth.uid(), merged_at = now(), merged_ops = v_count,
         merged_first_seq = (v_commit ->> 'first_seq')::bigint, merged_last_seq = (v_commit ->> 'last_seq')::bigint
   where id = v.id
  returning * into v;
  return v;
end
$$;
revoke execute on function public.merge_proposal(uuid, uuid, jsonb) from public, anon;
grant execute on function public.merge_proposal(uuid, uuid, jsonb) to authenticated, service_role;

/** The author or an owner closes a proposal that is not merged; its draft stays readable. */
create function public.close_proposal(p_proposal uuid) returns public.proposals
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.proposals := public.proposal_for_step(p_proposal);
begin
  if not ((v.author = auth.uid() and public.is_project_member(v.project_id)) or public.is_project_owner(v.project_id)) then
    raise exception 'only the proposal''s author or an owner closes it' using errcode = '42501';
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

-- Realtime: the room hears of proposals and their changes (through RLS).
alter publication supabase_realtime add table public.proposals;
