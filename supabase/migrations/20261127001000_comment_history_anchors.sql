-- Threads on a timeline entry and on a simulation step, checked by the database.
--
-- A thread on a timeline entry names an edit batch by the seq of its first op
-- (anchor_kind 'timeline', anchor '42'); that op must be in the machine's own log. A
-- thread on a simulation step names a run and a step of it (anchor_kind 'step', anchor
-- '<simulation id>:<step>', step 1 being the run's first event); the run must be one of
-- the machine's and the step one it has taken. Anything else is refused in PostgREST's
-- error shape (22023, with a hint) and nothing is written. Who reads and who writes is
-- unchanged: the policies of 20261127000400_comments.sql stand.

/** A new thread's anchor on a timeline entry or a simulation step is in this machine's history (other kinds pass). */
create function public.comment_threads_anchor_check() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_seq bigint;
  v_run uuid;
  v_step bigint;
begin
  if new.anchor_kind = 'timeline' then
    if new.anchor !~ '^[1-9][0-9]{0,17}$' then
      raise exception 'a timeline entry is named by the seq of its first edit (a whole number), not "%"', left(new.anchor, 60)
        using errcode = '22023', hint = 'Comment from the entry in the Timeline.';
    end if;
    v_seq := new.anchor::bigint;
    if not exists (select 1 from public.machine_ops o where o.machine_id = new.machine_id and o.seq = v_seq) then
      raise exception 'this machine has no edit #% in its history', v_seq
        using errcode = '22023', hint = 'Comment from an entry in this machine''s Timeline.';
    end if;
  elsif new.anchor_kind = 'step' then
    if new.anchor !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:[1-9][0-9]{0,17}$' then
      raise exception 'a simulation step is named "<simulation id>:<step>", not "%"', left(new.anchor, 60)
        using errcode = '22023', hint = 'Comment from a step of a run in the Simulation panel.';
    end if;
    v_run := split_part(new.anchor, ':', 1)::uuid;
    v_step := split_part(new.anchor, ':', 2)::bigint;
    if not exists (select 1 from public.simulations s where s.id = v_run and s.machine_id = new.machine_id) then
      raise exception 'that simulation is not a run of this machine'
        using errcode = '22023', hint = 'Comment on a step of one of this machine''s runs.';
    end if;
    if not exists (select 1 from public.simulation_events e where e.simulation_id = v_run and e.seq = v_step) then
      raise exception 'that run has no step %', v_step
        using errcode = '22023', hint = 'Comment on a step the run has taken.';
    end if;
  end if;
  return new;
end
$$;

revoke execute on function public.comment_threads_anchor_check() from public, anon, authenticated;

-- An anchor never changes after the insert (no client may update it), so inserts alone are checked.
create trigger comment_threads_anchor_check before insert on public.comment_threads
  for each row execute function public.comment_threads_anchor_check();
