-- Seed data for a fresh database (the Supabase CLI runs this after the migrations).
-- Safe to run again: every insert skips rows that already exist.

-- The demo login: demo@chartroom.dev / chartroom-demo, confirmed, with its email identity,
-- exactly as the auth service would have created it at sign-up. pgcrypto's bcrypt uses
-- cost 10, as GoTrue does. Runs as postgres, whose search_path includes `extensions`
-- (where pgcrypto lives) on hosted and here alike.
insert into auth.users (
  instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at, is_anonymous,
  confirmation_token, recovery_token, email_change_token_new, email_change
)
select
  '00000000-0000-0000-0000-000000000000', 'c4a7700d-de30-4000-8000-000000000001', 'authenticated', 'authenticated',
  'demo@chartroom.dev', crypt('chartroom-demo', gen_salt('bf', 10)), now(),
  '{"provider": "email", "providers": ["email"]}', '{"display_name": "Demo"}', false, now(), now(), false,
  '', '', '', ''
where not exists (select 1 from auth.users where id = 'c4a7700d-de30-4000-8000-000000000001' or email = 'demo@chartroom.dev');

insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
select u.id::text, u.id,
       jsonb_build_object('sub', u.id::text, 'email', u.email, 'email_verified', true, 'phone_verified', false),
       'email', now(), now(), now()
  from auth.users u
 where u.id = 'c4a7700d-de30-4000-8000-000000000001'
on conflict (provider_id, provider) do nothing;
