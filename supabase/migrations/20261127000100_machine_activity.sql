-- Who last changed each machine of a project, and when: the head of each machine's log.
-- The room's machine cards say "edited 5 min ago by Ada". A machine's row changes only at
-- checkpoints, so its updated_at lags behind the log; the log's last op is the truth.

/**
 * Each machine of `p_project` with ops: its log's head seq, that op's author (null when
 * the author's account is gone) and when it was appended. One call per project, checked
 * once, then one primary-key probe per machine. A project the caller cannot read is
 * reported missing (P0002), as read_machine_ops does for a machine.
 */
create function public.machine_activity(p_project uuid)
returns table (machine_id uuid, head bigint, author uuid, changed_at timestamptz)
language plpgsql stable security definer set search_path = '' as $$
begin
  if p_project is null then
    raise exception 'a project is required' using errcode = '22023';
  end if;
  if not (coalesce(auth.role(), '') = 'service_role' or public.can_read_project(p_project)) then
    raise exception 'project not found' using errcode = 'P0002';
  end if;
  return query
    select m.id, o.seq, o.author, o.created_at
      from public.machines m
     cross join lateral (
       select x.seq, x.author, x.created_at from public.machine_ops x
        where x.machine_id = m.id order by x.seq desc limit 1
     ) o
     where m.project_id = p_project;
end
$$;
revoke execute on function public.machine_activity(uuid) from public;
grant execute on function public.machine_activity(uuid) to anon, authenticated, service_role;
