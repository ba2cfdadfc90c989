-- Where each person has read a machine's comments up to: one row per person and machine,
-- `read_at` the newest comment they have looked at. What counts as unread (comments by
-- others after it) then survives a reload and can be counted per machine for the room.
--
-- Who may do what: only your own rows, read and written by you alone (not a project's
-- owner, not a guest sharing your project); a mark is for a machine you may read. Bad
-- input is refused before anything is written: a machine you cannot see (PT404), a mark
-- in the future (22023). Marks only move forward (an older one is kept, not an error).

create table public.comment_reads (
  user_id uuid not null references auth.users (id) on delete cascade default auth.uid(),
  machine_id uuid not null references public.machines (id) on delete cascade,
  read_at timestamptz not null,
  primary key (user_id, machine_id)
);

/** Checks a mark before it is written: the machine visible to the caller, the time not ahead of now; never moves back. */
create function public.comment_reads_check() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if not (coalesce(auth.role(), '') = 'service_role' or public.can_read_machine(new.machine_id)) then
    raise exception 'machine not found' using errcode = 'PT404';
  end if;
  if new.read_at > now() + interval '1 minute' then
    raise exception 'a read mark cannot be in the future' using errcode = '22023';
  end if;
  if tg_op = 'UPDATE' and new.read_at < old.read_at then
    new.read_at := old.read_at;
  end if;
  return new;
end;
$$;
revoke execute on function public.comment_reads_check() from public, anon, authenticated;

create trigger comment_reads_check before insert or update on public.comment_reads
  for each row execute function public.comment_reads_check();

alter table public.comment_reads enable row level security;

create policy "comment reads: your own"
  on public.comment_reads for all to authenticated
  using (user_id = auth.uid())
  with check (user_id = auth.uid());
create policy "comment reads: service role"
  on public.comment_reads for all to service_role using (true) with check (true);

revoke all on public.comment_reads from public, anon, authenticated;
grant select, delete on public.comment_reads to authenticated;
grant insert (user_id, machine_id, read_at), update (user_id, machine_id, read_at) on public.comment_reads to authenticated;
grant select, insert, update, delete on public.comment_reads to service_role;
