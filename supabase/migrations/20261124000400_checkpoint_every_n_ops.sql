-- Checkpoints every 100 ops, off the append's path.
--
-- Before: every append whose machine had a free checkpoint lease took it (so, in a quiet
-- room, every append), and the appending client ran the checkpoint-machine function
-- before it reported the edit saved. In a busy room one checkpoint ran all the time,
-- each save rewriting the whole definition under the machine's row lock (the lock every
-- append waits for) and taking CPU from the appends; and every append wrote the lease
-- row under that lock too.
--
-- Now:
-- - An append says `checkpoint_due` (and takes the lease) only when the log has moved
--   at least 100 ops past the checkpoint and the lease is free (or its holder has been
--   silent 10 s). Below that the append writes nothing but its ops and its broadcast.
-- - The client that took the lease runs the function after the append has answered,
--   without waiting for it (src/adapters/supabase/machines.ts).
-- - save_machine_checkpoint gives the lease back once the checkpoint is less than 100
--   ops behind the head, so a busy room's checkpoint moves about once per 100 ops
--   instead of continuously; the function stops there.
-- - The rights checks run before the machine's row is locked, so the lock is held only
--   for the seq, the insert, the broadcast and the commit.
-- Readers are unchanged: a load is the checkpoint plus the ops after it (now up to about
-- 100), and whoever needs the stored definition at the head (starting a simulation) asks
-- the function first; its replay is deterministic, so anyone who may read may ask.

/** Ops between checkpoints: how far the stored definition may trail the log's head. */
create function public.machine_checkpoint_interval() returns integer
language sql immutable set search_path = '' as $$ select 100 $$;
revoke execute on function public.machine_checkpoint_interval() from public;
grant execute on function public.machine_checkpoint_interval() to anon, authenticated, service_role;

/**
 * Appends a batch of ops to a machine's log and answers with the seq range it got
 * (20261124000100_server_ordered_ops.sql describes the protocol and the refusals, which
 * are unchanged). `checkpoint_due` is true when this append took the checkpoint lease:
 * the log is at least machine_checkpoint_interval() ops past the checkpoint.
 */
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
  v_project uuid;
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
  v_service boolean := coalesce(auth.role(), '') = 'service_role';
begin
  if auth.uid() is null and not v_service then
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
  select t.ord - 1, public.machine_op_problem(t.elem) into v_index, v_problem
    from jsonb_array_elements(p_ops) with ordinality as t(elem, ord)
   where public.machine_op_problem(t.elem) is not null
   order by t.ord limit 1;
  if v_problem is not null then
    raise exception 'op % %', v_index, v_problem
      using errcode = '22023', detail = jsonb_build_object('index', v_index)::text;
  end if;

  -- Rights first, without the lock: appends to one machine wait for each other only for
  -- the seq, the insert and the commit.
  select m.project_id into v_project from public.machines m where m.id = p_machine;
  -- A machine you cannot read is reported missing, so ids do not leak.
  if v_project is null or not (v_service or public.can_read_project(v_project)) then
    raise exception 'machine not found' using errcode = 'P0002';
  end if;
  if not (v_service or public.can_edit_project(v_project)) then
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
  select p_machine, v_head + t.ord, auth.uid(), p_client_id, p_batch_id, t.elem
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

/**
 * Saves a checkpoint computed by trusted code (as before: forward only, never past the
 * head, service role only). Answers `{saved, version, head, released}`: the lease is
 * given back (`released`) once the checkpoint is less than machine_checkpoint_interval()
 * ops behind the head, under the machine's row lock, so an append either came before and
 * is counted in `head`, or comes after and takes the lease itself when it is due.
 */
create or replace function public.save_machine_checkpoint(p_machine uuid, p_seq bigint, p_definition jsonb)
returns jsonb
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_checkpoint bigint;
  v_head bigint;
  v_saved boolean := false;
  v_released boolean := false;
begin
  if p_machine is null or p_seq is null or p_definition is null or jsonb_typeof(p_definition) <> 'object' then
    raise exception 'machine, seq and a definition object are required' using errcode = '22023';
  end if;
  select m.version into v_checkpoint from public.machines m where m.id = p_machine for update;
  if v_checkpoint is null then
    raise exception 'machine not found' using errcode = 'P0002';
  end if;
  select coalesce(max(o.seq), 0) into v_head from public.machine_ops o where o.machine_id = p_machine;
  if p_seq > v_head then
    raise exception 'seq % is beyond the log''s head %', p_seq, v_head using errcode = '22023';
  end if;
  if p_seq > v_checkpoint then
    perform set_config('chartroom.committing', 'on', true);
    update public.machines set definition = p_definition, version = p_seq where id = p_machine;
    perform set_config('chartroom.committing', '', true);
    v_checkpoint := p_seq;
    v_saved := true;
  end if;
  if v_head - v_checkpoint < public.machine_checkpoint_interval() then
    delete from public.machine_checkpoint_leases where machine_id = p_machine;
    v_released := true;
  end if;
  return jsonb_build_object('saved', v_saved, 'version', v_checkpoint, 'head', v_head, 'released', v_released);
end
$$;
revoke execute on function public.save_machine_checkpoint(uuid, bigint, jsonb) from public, anon, authenticated;
grant execute on function public.save_machine_checkpoint(uuid, bigint, jsonb) to service_role;
