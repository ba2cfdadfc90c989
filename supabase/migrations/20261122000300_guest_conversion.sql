-- A guest who converts to an email account (auth.updateUser({ email, password })) is a
-- guest no more: their profile follows, and a placeholder "Guest" name becomes the
-- email's local part.

create function public.handle_user_updated() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.profiles p
     set is_guest = coalesce(new.is_anonymous, false),
         display_name = case
           when p.display_name = 'Guest' and new.email is not null and new.email <> ''
             then left(split_part(new.email, '@', 1), 80)
           else p.display_name
         end
   where p.id = new.id;
  return new;
end
$$;
revoke execute on function public.handle_user_updated() from public;

create trigger on_auth_user_updated after update of is_anonymous, email on auth.users
  for each row
  when (old.is_anonymous is distinct from new.is_anonymous or old.email is distinct from new.email)
  execute function public.handle_user_updated();
