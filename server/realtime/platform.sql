-- Broadcast from the database, with hosted Supabase's signatures and behaviour:
-- realtime.send() and realtime.broadcast_changes() write rows into realtime.messages;
-- the realtime service fans each new broadcast row out to its topic. Hosted reads those
-- rows from logical replication; here an AFTER INSERT trigger NOTIFYs them, so only
-- committed rows are delivered (a rolled back transaction's notifications never fire).
-- Idempotent: runs on every start.

-- realtime.send: never fails the caller; a refused insert (RLS) becomes a WARNING.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql
as $fn$
declare
  message_id uuid := gen_random_uuid();
  body jsonb := payload;
begin
  begin
    -- Receivers can match a message to its row: the payload carries the row id unless it has one.
    if jsonb_typeof(payload) = 'object' and not (payload ? 'id') then
      body := payload || jsonb_build_object('id', message_id);
    end if;
    -- Policies on realtime.messages see the topic through realtime.topic().
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (message_id, body, event, topic, private, 'broadcast');
  exception when others then
    raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end
$fn$;

-- realtime.broadcast_changes: for row-level triggers; sends {schema, table, operation,
-- record, old_record} as a private broadcast on topic_name.
create or replace function realtime.broadcast_changes(
  topic_name text,
  event_name text,
  operation text,
  table_name text,
  table_schema text,
  new record,
  old record,
  level text default 'ROW'
)
returns void
language plpgsql
as $fn$
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation not in ('INSERT', 'UPDATE', 'DELETE') then
    raise exception 'Unexpected operation type: %', operation;
  end if;
  perform realtime.send(
    jsonb_build_object(
      'schema', table_schema,
      'table', table_name,
      'operation', operation,
      'record', to_jsonb(new),
      'old_record', to_jsonb(old)
    ),
    event_name,
    topic_name
  );
exception when others then
  raise exception 'Failed to process the row: %', sqlerrm;
end
$fn$;

grant execute on function realtime.send(jsonb, text, text, boolean) to anon, authenticated, service_role;
grant execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  to anon, authenticated, service_role;

-- The hand-off to the realtime service. Small rows travel whole in the notification;
-- rows past NOTIFY's 8000-byte payload limit send only their id and are read back.
create or replace function realtime.notify_broadcast_message()
returns trigger
language plpgsql
as $fn$
declare
  body text;
begin
  body := jsonb_build_object(
    'id', new.id, 'topic', new.topic, 'event', new.event, 'private', new.private, 'payload', new.payload
  )::text;
  if octet_length(body) > 7800 then
    body := jsonb_build_object('id', new.id)::text;
  end if;
  perform pg_notify('realtime_broadcast_messages', body);
  return null;
end
$fn$;

create or replace trigger realtime_broadcast_messages_notify
  after insert on realtime.messages
  for each row
  when (new.extension = 'broadcast')
  execute function realtime.notify_broadcast_message();
