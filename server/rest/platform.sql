-- The REST service's schema cache follows DDL the way hosted Supabase's does: an event
-- trigger sends NOTIFY pgrst, 'reload schema' after every DDL command and drop, and the
-- service (LISTEN pgrst) reloads. Idempotent: runs on every start.
create or replace function extensions.pgrst_ddl_watch() returns event_trigger
language plpgsql as $$
begin
  perform pg_notify('pgrst', 'reload schema');
end
$$;

do $$ begin
  if not exists (select 1 from pg_event_trigger where evtname = 'pgrst_ddl_watch') then
    create event trigger pgrst_ddl_watch on ddl_command_end execute procedure extensions.pgrst_ddl_watch();
  end if;
  if not exists (select 1 from pg_event_trigger where evtname = 'pgrst_drop_watch') then
    create event trigger pgrst_drop_watch on sql_drop execute procedure extensions.pgrst_ddl_watch();
  end if;
end $$;
