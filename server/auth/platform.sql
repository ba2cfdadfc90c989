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

-- MFA factors and their challenges, with GoTrue's shapes (TOTP only here).
do $$ begin
  create type auth.factor_type as enum ('totp', 'webauthn', 'phone');
exception when duplicate_object then null; end $$;
do $$ begin
  create type auth.factor_status as enum ('unverified', 'verified');
exception when duplicate_object then null; end $$;
create table if not exists auth.mfa_factors (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type auth.factor_type not null,
  status auth.factor_status not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  secret text,
  phone text,
  last_challenged_at timestamptz unique
);
create unique index if not exists mfa_factors_user_friendly_name_unique
  on auth.mfa_factors (friendly_name, user_id) where trim(friendly_name) <> '';
create index if not exists factor_id_created_at_idx on auth.mfa_factors (user_id, created_at);
create table if not exists auth.mfa_challenges (
  id uuid primary key,
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null,
  verified_at timestamptz,
  ip_address inet not null,
  otp_code text
);
