-- Auth tables the platform bootstrap does not create, with hosted Supabase's shapes.
-- Idempotent: runs on every start after server/postgres/bootstrap.sql.

-- How each session was authenticated (password, anonymous, ...): the access token's
-- `amr` claim is rebuilt from these rows on every refresh, as GoTrue does.
create table if not exists auth.mfa_amr_claims (
  session_id uuid not null references auth.sessions (id) on delete cascade,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  authentication_method text not null,
  id uuid primary key,
  constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
);

-- Sign-in and sign-up find users by lower(email) without instance_id (rows made by hand or
-- by other tools may lack it), so the bootstrap's (instance_id, lower(email)) index misses.
create index if not exists users_lower_email_idx on auth.users (lower(email));
-- The admin list pages newest first.
create index if not exists users_created_at_idx on auth.users (created_at desc);
