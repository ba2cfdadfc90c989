-- The platform hosted Supabase gives every project before its own migrations run:
-- roles with hosted's attributes, the auth, storage and realtime schemas, extensions,
-- the realtime publication and hosted's default privileges. Column names, types, owners
-- and grants follow hosted Supabase (supabase/postgres init scripts and migrations,
-- GoTrue, storage and realtime tenant migrations), so a migration that runs here runs
-- there unchanged, and one that would fail there fails here.
--
-- Runs as the superuser supabase_admin, on every start (idempotent). Migrations and the
-- seed then run as `postgres`, which is not a superuser, on fresh connections.
-- server/postgres/privileges.sql runs after every service's platform.sql and settles
-- owners and grants of everything the platform made.

-- Roles ---------------------------------------------------------------------------
do $$
declare
  r text;
begin
  foreach r in array array['anon', 'authenticated', 'service_role', 'supabase_auth_admin',
    'supabase_storage_admin', 'supabase_realtime_admin', 'dashboard_user', 'pgbouncer',
    'supabase_replication_admin', 'supabase_read_only_user']
  loop
    if not exists (select 1 from pg_roles where rolname = r) then
      execute format('create role %I nologin', r);
    end if;
  end loop;
  if not exists (select 1 from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit password 'postgres';
  end if;
  if not exists (select 1 from pg_roles where rolname = 'postgres') then
    create role postgres login password 'postgres';
  end if;
end
$$;

-- As hosted: supabase_admin is the only superuser; postgres is demoted (supabase/postgres
-- 10000000000000_demote-postgres) and owns the database, so it owns `public`.
alter role supabase_admin superuser createdb createrole replication bypassrls login;
do $$ begin
  -- A data dir made before this platform has postgres as its bootstrap superuser, which
  -- PostgreSQL does not let anyone demote: the backend warns about it (server/backend.ts).
  if (select rolname from pg_authid where oid = 10) <> 'postgres' then
    alter role postgres nosuperuser createdb createrole login replication bypassrls inherit;
  end if;
end $$;
alter database postgres owner to postgres;
grant all on database postgres to postgres;

-- The API roles inherit (supabase/postgres 20230529180330); the authenticator does not.
alter role anon nologin inherit;
alter role authenticated nologin inherit;
alter role service_role nologin inherit bypassrls;
alter role authenticator noinherit;
alter role supabase_auth_admin noinherit createrole login noreplication;
alter role supabase_storage_admin noinherit createrole login noreplication bypassrls;
alter role supabase_realtime_admin noinherit nologin noreplication;
alter role supabase_replication_admin login replication;
alter role supabase_read_only_user login bypassrls;
alter role dashboard_user nosuperuser createdb createrole replication;
grant anon, authenticated, service_role to authenticator;
grant anon, authenticated, service_role to postgres;
grant pg_read_all_data, pg_signal_backend, pg_monitor to postgres;
grant pg_read_all_data to supabase_read_only_user;
grant authenticator to supabase_storage_admin;
-- Hosted lets postgres set PostgREST's settings (pgrst.*) on authenticator through supautils
-- (privileged_role_allowed_configs), as the CLI's migrations do (`alter role authenticator set
-- pgrst.db_plan_enabled ...`). Without supautils, PostgreSQL 16+ asks for ADMIN OPTION on the role:
-- postgres gets it alone, neither inheriting authenticator's rights nor able to SET ROLE to it, and
-- SET on PostgREST's in-database settings (placeholders, which a non-superuser needs a grant for).
grant authenticator to postgres with admin option, inherit false, set false;
grant set on parameter
  pgrst.db_aggregates_enabled, pgrst.db_anon_role, pgrst.db_extra_search_path, pgrst.db_hoisted_tx_settings,
  pgrst.db_max_rows, pgrst.db_plan_enabled, pgrst.db_pre_request, pgrst.db_prepared_statements,
  pgrst.db_root_spec, pgrst.db_schemas, pgrst.db_tx_end, pgrst.jwt_aud, pgrst.jwt_cache_max_lifetime,
  pgrst.jwt_role_claim_key, pgrst.jwt_secret, pgrst.jwt_secret_is_base64, pgrst.openapi_mode,
  pgrst.openapi_security_active, pgrst.openapi_server_proxy_uri, pgrst.server_cors_allowed_origins,
  pgrst.server_timing_enabled, pgrst.server_trace_header
  to postgres;
revoke supabase_admin from authenticator;
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';

-- The search path is set per role, as hosted sets it; the database sets none.
alter database postgres reset search_path;
alter role supabase_admin set search_path = "$user", public, auth, extensions;
alter role postgres set search_path = "$user", public, extensions;
alter role supabase_auth_admin set search_path = auth;
alter role supabase_storage_admin set search_path = storage;

-- Extensions --------------------------------------------------------------------
create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;
grant all on schema extensions to postgres;
create extension if not exists pgcrypto with schema extensions;
create extension if not exists "uuid-ossp" with schema extensions;

-- GraphQL: hosted exposes graphql_public (pg_graphql's entry point) beside public. Without
-- pg_graphql, hosted keeps a placeholder graphql() that answers with an error; so does this.
create schema if not exists graphql_public;
grant usage on schema graphql_public to postgres, anon, authenticated, service_role;
create or replace function graphql_public.graphql(
  "operationName" text default null,
  query text default null,
  variables jsonb default null,
  extensions jsonb default null
) returns jsonb
language sql stable as $$
  select jsonb_build_object('errors', jsonb_build_array(jsonb_build_object('message', 'pg_graphql extension is not enabled.')))
$$;
grant execute on function graphql_public.graphql(text, text, jsonb, jsonb) to postgres, anon, authenticated, service_role;

-- auth ----------------------------------------------------------------------------
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

do $$ begin
  create type auth.aal_level as enum ('aal1', 'aal2', 'aal3');
exception when duplicate_object then null; end $$;

create table if not exists auth.users (
  instance_id uuid,
  id uuid primary key,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255),
  email_change varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text unique default null,
  phone_confirmed_at timestamptz,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0,
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false
);
create unique index if not exists users_email_partial_key on auth.users (email) where is_sso_user = false;
create index if not exists users_instance_id_email_idx on auth.users (instance_id, lower(email));

create table if not exists auth.identities (
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  id uuid primary key default gen_random_uuid(),
  unique (provider_id, provider)
);
create index if not exists identities_user_id_idx on auth.identities (user_id);

create table if not exists auth.sessions (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz,
  updated_at timestamptz,
  factor_id uuid,
  aal auth.aal_level,
  not_after timestamptz,
  refreshed_at timestamp,
  user_agent text,
  ip inet,
  tag text
);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);

create table if not exists auth.refresh_tokens (
  instance_id uuid,
  id bigserial primary key,
  token varchar(255) unique,
  user_id varchar(255),
  revoked boolean,
  created_at timestamptz,
  updated_at timestamptz,
  parent varchar(255),
  session_id uuid references auth.sessions (id) on delete cascade
);
create index if not exists refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);
create index if not exists refresh_tokens_parent_idx on auth.refresh_tokens (parent);

create table if not exists auth.audit_log_entries (
  instance_id uuid,
  id uuid primary key,
  payload json,
  created_at timestamptz,
  ip_address varchar(64) not null default ''
);

create or replace function auth.jwt() returns jsonb
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

create or replace function auth.uid() returns uuid
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create or replace function auth.email() returns text
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;

grant execute on function auth.jwt(), auth.uid(), auth.role(), auth.email() to anon, authenticated, service_role;
grant select on auth.users to service_role;

-- storage -------------------------------------------------------------------------
create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;

do $$ begin
  create type storage.buckettype as enum ('STANDARD', 'ANALYTICS', 'VECTOR');
exception when duplicate_object then null; end $$;

create table if not exists storage.buckets (
  id text primary key,
  name text not null,
  owner uuid,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  public boolean default false,
  avif_autodetection boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  owner_id text,
  type storage.buckettype not null default 'STANDARD'
);
create unique index if not exists bname on storage.buckets (name);

create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now(),
  metadata jsonb,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  version text,
  owner_id text,
  user_metadata jsonb,
  level integer
);
create unique index if not exists bucketid_objname on storage.objects (bucket_id, name);
create index if not exists name_prefix_search on storage.objects (name text_pattern_ops);

-- Data dirs made before buckets.type was the enum.
do $$ begin
  if (select atttypid from pg_attribute
       where attrelid = 'storage.buckets'::regclass and attname = 'type') = 'text'::regtype then
    alter table storage.buckets alter column type drop default;
    alter table storage.buckets alter column type type storage.buckettype using type::storage.buckettype;
    alter table storage.buckets alter column type set default 'STANDARD';
  end if;
end $$;

alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;

-- Storage's delete protection (tenant migration 0055): a DELETE on buckets or objects
-- outside the storage API (which sets storage.allow_delete_query) would orphan files.
create or replace function storage.protect_delete() returns trigger
language plpgsql as $$
begin
  if coalesce(current_setting('storage.allow_delete_query', true), 'false') <> 'true' then
    raise exception 'Direct deletion from storage tables is not allowed. Use the Storage API instead.'
      using hint = 'This prevents accidental data loss from orphaned objects.', errcode = '42501';
  end if;
  return null;
end
$$;
create or replace trigger protect_buckets_delete before delete on storage.buckets
  for each statement execute function storage.protect_delete();
create or replace trigger protect_objects_delete before delete on storage.objects
  for each statement execute function storage.protect_delete();

create or replace function storage.foldername(name text) returns text[]
language plpgsql immutable as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1 : array_length(_parts, 1) - 1];
end
$$;

create or replace function storage.filename(name text) returns text
language plpgsql immutable as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end
$$;

create or replace function storage.extension(name text) returns text
language plpgsql immutable as $$
declare
  _parts text[];
  _filename text;
begin
  select string_to_array(name, '/') into _parts;
  select _parts[array_length(_parts, 1)] into _filename;
  return reverse(split_part(reverse(_filename), '.', 1));
end
$$;

grant execute on function storage.foldername(text), storage.filename(text), storage.extension(text)
  to anon, authenticated, service_role;

-- realtime ------------------------------------------------------------------------
create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;

-- realtime.messages as the realtime tenant migrations leave it: partitioned by day on
-- inserted_at, a jsonb or a binary payload (never both), RLS on.
do $$ begin
  if exists (select 1 from pg_class where oid = to_regclass('realtime.messages') and relkind = 'r') then
    -- A data dir made when messages was a plain table: keep its policies, drop its rows
    -- (broadcast history hosted prunes after days anyway).
    alter table realtime.messages rename to messages_unpartitioned;
  end if;
end $$;

create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp not null default now(),
  inserted_at timestamp not null default now(),
  id uuid not null default gen_random_uuid(),
  binary_payload bytea,
  constraint messages_payload_exclusive check (payload is null or binary_payload is null),
  primary key (id, inserted_at)
) partition by range (inserted_at);
create index if not exists messages_inserted_at_topic_index on realtime.messages (inserted_at desc, topic);
alter table realtime.messages enable row level security;

do $$
declare
  p record;
begin
  if to_regclass('realtime.messages_unpartitioned') is null then
    return;
  end if;
  for p in select * from pg_policies where schemaname = 'realtime' and tablename = 'messages_unpartitioned' loop
    execute format('create policy %I on realtime.messages as %s for %s to %s%s%s',
      p.policyname, p.permissive, p.cmd,
      (select string_agg(quote_ident(r), ', ') from unnest(p.roles) r),
      case when p.qual is null then '' else format(' using (%s)', p.qual) end,
      case when p.with_check is null then '' else format(' with check (%s)', p.with_check) end);
  end loop;
  drop table realtime.messages_unpartitioned;
end $$;

-- Hosted's realtime creates the day partitions around today on connect and daily; here
-- the days around each start, plus a default partition in place of its daily janitor.
-- A day whose rows already went to the default partition (a backend that ran for days)
-- keeps them there: its partition is not created.
create table if not exists realtime.messages_default partition of realtime.messages default;
do $$
declare
  d date;
begin
  for d in select generate_series(current_date - 1, current_date + 3, interval '1 day')::date loop
    begin
      execute format('create table if not exists realtime.%I partition of realtime.messages for values from (%L) to (%L)',
        'messages_' || to_char(d, 'YYYY_MM_DD'), d, d + 1);
    exception when check_violation then
      null;
    end;
  end loop;
end $$;

create or replace function realtime.topic() returns text
language sql stable as $$
  select nullif(current_setting('realtime.topic', true), '')::text
$$;
grant execute on function realtime.topic() to anon, authenticated, service_role;

do $$ begin
  if not exists (select 1 from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end $$;

-- Migrations bookkeeping, as the Supabase CLI keeps it ------------------------------
create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (
  version text primary key,
  statements text[],
  name text
);

-- Default privileges: hosted's Data API defaults are revoked ---------------------------
-- Since 2026-10-30 a new table, view, sequence or function in `public` is granted to
-- none of the API roles on hosted Supabase (the Supabase CLI applies the same revokes):
-- every migration grants exactly what it needs. Only default privileges change here, so
-- this never touches a grant a migration made.
grant usage on schema public to anon, authenticated, service_role;
do $$
declare
  owner text;
  kind text;
begin
  foreach owner in array array['postgres', 'supabase_admin'] loop
    foreach kind in array array['tables', 'sequences', 'functions'] loop
      execute format('alter default privileges for role %I in schema public revoke all on %s from anon, authenticated, service_role',
        owner, kind);
    end loop;
  end loop;
end $$;

create table if not exists supabase_migrations.seed_files (
  path text primary key,
  hash text not null
);
