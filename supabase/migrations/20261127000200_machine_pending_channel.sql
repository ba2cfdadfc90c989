-- Edits seen before they are durable: `machine-pending:<machine id>`.
--
-- An editor's client sends each batch it appends, the moment it sends it to
-- commit_machine_ops, to the machine's readers on this private channel; they show it at
-- once as pending, on top of the log they have, until the log's own copy arrives on
-- `machine-ops:<id>` (or they give up on it and roll it back). The log stays the only
-- truth: nothing on this channel is ever written to machine_ops or the checkpoint.
--
-- A separate topic, not `machine-ops:<id>`: Realtime authorises a channel's writers per
-- topic, not per event, so editors who may send here could otherwise forge the server's
-- `ops` broadcasts there. Readers of the machine receive; only its editors and owners
-- send (a viewer's or a guest's broadcast is refused by the server, never delivered).

/** The machine id in a `machine-pending:<uuid>` topic, or null for any other topic. */
create function public.machine_pending_topic_machine(p_topic text) returns uuid
language sql immutable set search_path = '' as $$
  select case when p_topic ~ '^machine-pending:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
              then substr(p_topic, 17)::uuid end
$$;
revoke execute on function public.machine_pending_topic_machine(text) from public;
grant execute on function public.machine_pending_topic_machine(text) to anon, authenticated, service_role;

/** Whether the caller may send pending batches on the topic: an editor or owner of the machine's project. */
create function public.can_send_machine_pending(p_topic text) returns boolean
language plpgsql stable security definer set search_path = '' as $$
declare
  v_machine uuid := public.machine_pending_topic_machine(p_topic);
  v_project uuid;
begin
  if v_machine is null then
    return false;
  end if;
  select m.project_id into v_project from public.machines m where m.id = v_machine;
  return v_project is not null and public.can_edit_project(v_project);
end
$$;
revoke execute on function public.can_send_machine_pending(text) from public;
grant execute on function public.can_send_machine_pending(text) to authenticated, service_role;

create policy "machine pending channels: readers of the machine receive"
  on realtime.messages for select to anon, authenticated
  using (
    public.machine_pending_topic_machine(realtime.topic()) is not null
    and public.can_read_machine(public.machine_pending_topic_machine(realtime.topic()))
  );

create policy "machine pending channels: editors send batches"
  on realtime.messages for insert to authenticated
  with check (extension = 'broadcast' and public.can_send_machine_pending(realtime.topic()));
