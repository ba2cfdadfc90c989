-- Owners and grants of everything the platform made, as hosted Supabase has them. Runs
-- after bootstrap.sql and every service's platform.sql, on every start (idempotent), as
-- supabase_admin.
--
-- `postgres` owns public and what migrations create; the platform's own tables belong to
-- the service that owns them on hosted (supabase_auth_admin, supabase_storage_admin,
-- supabase_realtime_admin), so postgres cannot alter or drop them.

-- auth: owned by supabase_auth_admin; postgres may read and write the tables and hang
-- triggers on them (supabase/postgres 10000000000000_demote-postgres). auth.users has RLS
-- on, with no policies: only roles that bypass RLS see its rows.
alter schema auth owner to supabase_admin;
do $$
declare
  t record;
begin
  -- Owned sequences follow their tables.
  for t in select c.oid::regclass as rel from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'auth' and c.relkind in ('r', 'p', 'v') loop
    execute format('alter table %s owner to supabase_auth_admin', t.rel);
  end loop;
end $$;
alter table auth.users enable row level security;
grant all on schema auth to supabase_auth_admin, postgres;
grant all on all tables in schema auth to postgres;
grant all on all sequences in schema auth to postgres;
grant all on all routines in schema auth to postgres;

-- storage: owned by supabase_storage_admin; tenant migrations 0046 and 0049 grant these.
alter schema storage owner to supabase_admin;
grant all on schema storage to supabase_storage_admin, postgres;
alter table storage.buckets owner to supabase_storage_admin;
alter table storage.objects owner to supabase_storage_admin;
grant all on storage.buckets, storage.objects to anon, authenticated, service_role;
grant all on storage.buckets, storage.objects to postgres with grant option;

-- realtime: owned by supabase_realtime_admin; select, insert and update (no delete) for
-- the API roles and postgres; postgres may use the schema but not create in it (realtime
-- 20241030150047 and 20260707120000).
alter schema realtime owner to supabase_admin;
grant usage on schema realtime to postgres with grant option;
grant usage on schema realtime to supabase_realtime_admin;
do $$
declare
  t regclass;
begin
  for t in select c.oid::regclass from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = 'realtime' and c.relkind in ('r', 'p') and c.relname like 'messages%' loop
    execute format('alter table %s owner to supabase_realtime_admin', t);
  end loop;
end $$;
revoke all on realtime.messages from anon, authenticated, service_role, postgres;
grant select, insert, update on realtime.messages to postgres, anon, authenticated, service_role;

-- The publication and the migrations bookkeeping are postgres's, as hosted's are.
alter publication supabase_realtime owner to postgres;
alter schema supabase_migrations owner to postgres;
alter table supabase_migrations.schema_migrations owner to postgres;
alter table supabase_migrations.seed_files owner to postgres;

-- Policies on the platform's tables ---------------------------------------------------
-- Hosted lets postgres create, alter and drop policies on a fixed list of platform tables
-- (supautils.policy_grants) without owning them. Without supautils, the same is done here
-- with event triggers: for the one policy command being run, postgres is made a member
-- of the owning service roles (ownership is what PostgreSQL checks), and the membership
-- is taken back when the command ends. A failed command rolls it back with the
-- transaction. Any other DDL on those tables stays refused, as on hosted.
create or replace function extensions.policy_grants_begin() returns event_trigger
language plpgsql security definer set search_path = '' as $$
begin
  grant supabase_auth_admin, supabase_storage_admin, supabase_realtime_admin to postgres with inherit true;
end
$$;
create or replace function extensions.policy_grants_end() returns event_trigger
language plpgsql security definer set search_path = '' as $$
begin
  revoke supabase_auth_admin, supabase_storage_admin, supabase_realtime_admin from postgres;
end
$$;
revoke all on function extensions.policy_grants_begin(), extensions.policy_grants_end() from public;
do $$ begin
  if not exists (select 1 from pg_event_trigger where evtname = 'policy_grants_begin') then
    create event trigger policy_grants_begin on ddl_command_start
      when tag in ('CREATE POLICY', 'ALTER POLICY', 'DROP POLICY') execute function extensions.policy_grants_begin();
  end if;
  if not exists (select 1 from pg_event_trigger where evtname = 'policy_grants_end') then
    create event trigger policy_grants_end on ddl_command_end
      when tag in ('CREATE POLICY', 'ALTER POLICY', 'DROP POLICY') execute function extensions.policy_grants_end();
  end if;
end $$;
-- A start that finds a membership left over (it never should be) takes it back.
revoke supabase_auth_admin, supabase_storage_admin, supabase_realtime_admin from postgres;
