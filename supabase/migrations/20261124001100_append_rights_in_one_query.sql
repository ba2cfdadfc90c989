-- A cheaper append: the same function, the same refusals and the same rights, with less
-- work per call (issue 9, closing the latency gap to durable Hocuspocus).
--
-- Measured with track_functions on the 2-core bench machine, one append of one op spent
-- about a third of its time in the rights helpers: can_edit_project calls project_role,
-- a SQL function nested in a SQL function, which PostgreSQL parses and plans again on
-- every call (a SQL function's plan lives only as long as the calling query), and
-- auth.uid() parsed the JWT claims once per helper. Now:
-- - the caller's id and role are read once;
-- - the machine's project, its visibility and the caller's role in it come from one
--   query in this PL/pgSQL function, whose plan is cached for the session. It asks exactly
--   what can_read_project and can_edit_project ask (read: the project is public or the
--   caller is a member; edit: the caller's role is owner or editor); a change to those
--   rules must change this query too (tests/server/machines-rls.test.ts covers both).
-- Everything else is as in 20261124000400_checkpoint_every_n_ops.sql: validation, the
-- machine's row lock, gapless seqs, duplicate batches, the broadcast and the lease.

create or replace function public.commit_machine_ops(
  p_machine uuid,
  p_client_id text,
  p_batch_id uuid,
  p_ops jsonb,
  p_definition jsonb default null,
  p_version bigint default null,
  p_base_version bigint default null,
  p_seq bigint default null
) returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_uid uuid := auth.uid();
  v_service boolean := coalesce(auth.role(), '') = 'service_role';
  v_project uuid;
  v_public boolean;
  v_role text;
  v_locked uuid;
  v_checkpoint bigint;
  v_head bigint;
  v_first bigint;
  v_last bigint;
  v_count integer;
  v_bytes integer;
  v_problem text;
  v_index bigint;
  v_due boolean := false;
begin
  if v_uid is null and not v_service then
    raise exception 'sign in to edit a machine' using errcode = '42501';
  end if;
  if p_definition is not null or p_version is not null or p_base_version is not null or p_seq is not null then
    raise exception 'the server computes a machine''s definition, version and seq numbers: send only ops'
      using errcode = '42501', hint = 'Call commit_machine_ops with p_machine, p_client_id, p_batch_id and p_ops.';
  end if;
  if p_machine is null or p_batch_id is null then
    raise exception 'machine and batch id are required' using errcode = '22023';
  end if;
  if p_client_id is null or char_length(p_client_id) not between 1 and 100 then
    raise exception 'client id must be 1 to 100 characters' using errcode = '22023';
  end if;
  if p_ops is null or jsonb_typeof(p_ops) <> 'array' or jsonb_array_length(p_ops) = 0 then
    raise exception 'ops must be a non-empty array' using errcode = '22023';
  end if;
  v_count := jsonb_array_length(p_ops);
  if v_count > 1000 then
    raise exception 'too many ops in one batch: % (the limit is 1000)', v_count using errcode = '54000';
  end if;
  v_bytes := octet_length(p_ops::text);
  if v_bytes > 786432 then
    raise exception 'this edit is too big: % bytes of ops (the limit is 786432 bytes, 768 KB)', v_bytes
      using errcode = '54000', detail = jsonb_build_object('bytes', v_bytes, 'limit', 786432)::text;
  end if;
  select t.ord - 1, p.problem into v_index, v_problem
    from jsonb_array_elements(p_ops) with ordinality as t(elem, ord)
    cross join lateral (select public.machine_op_problem(t.elem) as problem) p
   where p.problem is not null
   order by t.ord limit 1;
  if v_problem is not null then
    raise exception 'op % %', v_index, v_problem
      using errcode = '22023', detail = jsonb_build_object('index', v_index)::text;
  end if;

  -- Rights first, without the lock, in one query: can_read_project's and can_edit_project's rules.
  select m.project_id, p.visibility = 'public', pm.role into v_project, v_public, v_role
    from public.machines m
    join public.projects p on p.id = m.project_id
    left join public.project_members pm on pm.project_id = m.project_id and pm.user_id = v_uid
   where m.id = p_machine;
  -- A machine you cannot read is reported missing, so ids do not leak.
  if v_project is null or not (v_service or v_public or v_role is not null) then
    raise exception 'machine not found' using errcode = 'P0002';
  end if;
  if not (v_service or coalesce(v_role in ('owner', 'editor'), false)) then
    raise exception 'only editors and owners edit this machine' using errcode = '42501';
  end if;

  -- The machine row is locked (not rewritten): concurrent appends serialise, seqs stay gapless.
  select m.project_id, m.version into v_locked, v_checkpoint
    from public.machines m where m.id = p_machine for update;
  if v_locked is null then
    raise exception 'machine not found' using errcode = 'P0002';
  end if;
  -- Moved to another project meanwhile (only the service role can): its rights decide.
  if v_locked <> v_project and not (v_service or public.can_edit_project(v_locked)) then
    raise exception 'only editors and owners edit this machine' using errcode = '42501';
  end if;

  select coalesce(max(o.seq), 0) into v_head from public.machine_ops o where o.machine_id = p_machine;
  v_head := greatest(v_head, v_checkpoint);

  select min(o.seq), max(o.seq) into v_first, v_last
    from public.machine_ops o where o.machine_id = p_machine and o.batch_id = p_batch_id;
  if v_first is not null then
    return jsonb_build_object('first_seq', v_first, 'last_seq', v_last, 'version', v_head, 'duplicate', true,
                              'checkpoint_due', false);
  end if;

  insert into public.machine_ops (machine_id, seq, author, client_id, batch_id, op)
  select p_machine, v_head + t.ord, v_uid, p_client_id, p_batch_id, t.elem
    from jsonb_array_elements(p_ops) with ordinality as t(elem, ord);

  -- The batch goes to everyone following the machine as one private broadcast, sent when
  -- this transaction commits. A batch too big for one realtime message (256 KB) is
  -- announced by its last seq only: receivers read it from the log.
  perform realtime.send(
    case when v_bytes <= 200000 then
      jsonb_build_object('ops', (select jsonb_agg(jsonb_build_object('seq', v_head + t.ord, 'batch_id', p_batch_id, 'client_id', p_client_id, 'op', t.elem) order by t.ord)
                                   from jsonb_array_elements(p_ops) with ordinality as t(elem, ord)))
    else jsonb_build_object('ops', '[]'::jsonb, 'last_seq', v_head + v_count) end,
    'ops', 'machine-ops:' || p_machine::text, true);

  -- Far enough past the checkpoint: take the lease if it is free (or its holder went silent).
  if v_head + v_count - v_checkpoint >= public.machine_checkpoint_interval() then
    insert into public.machine_checkpoint_leases as l (machine_id, leased_at) values (p_machine, now())
    on conflict (machine_id) do update set leased_at = excluded.leased_at
     where l.leased_at < now() - interval '10 seconds'
    returning true into v_due;
  end if;

  return jsonb_build_object('first_seq', v_head + 1, 'last_seq', v_head + v_count, 'version', v_head + v_count,
                            'duplicate', false, 'checkpoint_due', coalesce(v_due, false));
end
$$;
revoke execute on function public.commit_machine_ops(uuid, text, uuid, jsonb, jsonb, bigint, bigint, bigint) from public, anon;
grant execute on function public.commit_machine_ops(uuid, text, uuid, jsonb, jsonb, bigint, bigint, bigint) to authenticated, service_role;
