import { randomBytes } from 'node:crypto';
import { asAdmin } from '../postgres/pool.ts';
import { body, clock, ok, type Call, type Reply } from './call.ts';
import { checkPasswordStrength, hashPassword, validateEmail, validatePhone } from './credentials.ts';
import { AuthError, unprocessable, validationFailed } from './errors.ts';
import { isUuid, requireAdmin } from './guard.ts';
import { booleanField, objectField, optionalStringField, stringField, type JsonObject } from './request.ts';
import { parseBanDuration } from './ban.ts';
import {
  findUserByEmail,
  findUserByPhone,
  insertUser,
  listUsersPage,
  loadUser,
  mergeMetadata,
  upsertEmailIdentity,
  userJson,
  type Db,
  type LoadedUser,
} from './users.ts';

const EMAIL_EXISTS = 'A user with this email address has already been registered';
const MAX_PER_PAGE = 1000;

/** Validated admin user attributes shared by create and update. */
interface AdminParams {
  email: string;
  phone: string;
  password: string | undefined;
  emailConfirm: boolean;
  phoneConfirm: boolean;
  userMetadata: JsonObject | undefined;
  appMetadata: JsonObject | undefined;
  role: string;
  banUntil: string | null | undefined;
}

function adminParams(params: JsonObject, nowMs: number): AdminParams {
  const rawEmail = stringField(params, 'email');
  const rawPhone = stringField(params, 'phone');
  const password = optionalStringField(params, 'password');
  if (password !== undefined && password !== '') checkPasswordStrength(password);
  const role = stringField(params, 'role');
  if (role.length > 255) throw validationFailed('Role is too long');
  return {
    email: rawEmail === '' ? '' : validateEmail(rawEmail),
    phone: rawPhone === '' ? '' : validatePhone(rawPhone),
    password,
    emailConfirm: booleanField(params, 'email_confirm'),
    phoneConfirm: booleanField(params, 'phone_confirm'),
    userMetadata: objectField(params, 'user_metadata'),
    appMetadata: objectField(params, 'app_metadata'),
    role,
    banUntil: parseBanDuration(stringField(params, 'ban_duration'), nowMs),
  };
}

async function ensureUnique(db: Db, p: AdminParams, self: string | null): Promise<void> {
  if (p.email) {
    const other = await findUserByEmail(db, p.email);
    if (other && other.id !== self) throw unprocessable('email_exists', EMAIL_EXISTS);
  }
  if (p.phone) {
    const other = await findUserByPhone(db, p.phone);
    if (other && other.id !== self)
      throw unprocessable('phone_exists', 'Phone number already registered by another user');
  }
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/** POST /admin/users: creates a user; without a password it gets an unguessable one. */
export async function createUser(call: Call): Promise<Reply> {
  await requireAdmin(call);
  const { nowMs, now } = clock(call);
  const p = adminParams(await body(call), nowMs);
  if (!p.email && !p.phone) throw validationFailed('Cannot create a user without either an email or phone');
  const password = p.password || randomBytes(32).toString('base64url');
  const hash = await hashPassword(password, call.options.bcryptCost);
  const providers = [...(p.email ? ['email'] : []), ...(p.phone ? ['phone'] : [])];
  try {
    const user = await asAdmin(call.pool, async (db) => {
      await ensureUnique(db, p, null);
      const id = await insertUser(
        db,
        {
          email: p.email || null,
          phone: p.phone || null,
          passwordHash: hash,
          appMetadata: { ...(p.appMetadata ?? {}), provider: providers[0], providers },
          userMetadata: p.userMetadata ?? {},
          confirmed: p.emailConfirm,
          isAnonymous: false,
          role: p.role || 'authenticated',
        },
        now,
      );
      if (p.email) await upsertEmailIdentity(db, id, p.email, p.emailConfirm, {}, now);
      if (!p.emailConfirm && p.email)
        await db.query(`update auth.users set confirmation_sent_at = null where id = $1`, [id]);
      if (p.phoneConfirm) await db.query(`update auth.users set phone_confirmed_at = $2 where id = $1`, [id, now]);
      if (p.banUntil !== undefined)
        await db.query(`update auth.users set banned_until = $2 where id = $1`, [id, p.banUntil]);
      return (await loadUser(db, id))!;
    });
    return ok(userJson(user));
  } catch (error) {
    if (isUniqueViolation(error)) throw unprocessable('email_exists', EMAIL_EXISTS);
    throw error;
  }
}

/** GET /admin/users?page=&per_page=: newest first, with GoTrue's Link and X-Total-Count headers. */
export async function listUsers(call: Call): Promise<Reply> {
  await requireAdmin(call);
  const query = call.ctx.url.searchParams;
  const page = pageParam(query.get('page'), 1);
  const perPage = Math.min(pageParam(query.get('per_page'), 50), MAX_PER_PAGE);
  const total = await call.pool.query<{ n: string }>(
    `select count(*)::text as n from auth.users where aud = 'authenticated'`,
  );
  const count = Number(total.rows[0]?.n ?? 0);
  const users = await listUsersPage(call.pool, perPage, (page - 1) * perPage);
  return ok({ users: users.map(userJson), aud: 'authenticated' }, paginationHeaders(call, page, perPage, count));
}

function pageParam(value: string | null, fallback: number): number {
  if (value === null || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) {
    throw validationFailed(`Bad Pagination Parameters: invalid value ${JSON.stringify(value.slice(0, 40))}`);
  }
  return Number(value);
}

/** `page` comes first in each link: supabase-js reads the page number right after the first "=". */
function paginationHeaders(call: Call, page: number, perPage: number, count: number): Record<string, string> {
  const lastPage = Math.ceil(count / perPage);
  const base = `${call.apiUrl()}/auth/v1/admin/users`;
  const link = (p: number) => `<${base}?page=${p}&per_page=${perPage}>`;
  const parts: string[] = [];
  if (lastPage > page) parts.push(`${link(page + 1)}; rel="next"`);
  parts.push(`${link(lastPage)}; rel="last"`);
  return { link: parts.join(', '), 'x-total-count': String(count) };
}

function userIdFrom(call: Call): string {
  const id = /^\/admin\/users\/([^/]+)\/?$/.exec(call.ctx.path)?.[1] ?? '';
  if (!isUuid(id)) throw new AuthError(404, 'validation_failed', 'user_id must be an UUID');
  return id;
}

async function existingUser(db: Db, id: string): Promise<LoadedUser> {
  const user = await loadUser(db, id);
  if (!user) throw new AuthError(404, 'user_not_found', 'User not found');
  return user;
}

/** GET /admin/users/:id */
export async function getUserById(call: Call): Promise<Reply> {
  await requireAdmin(call);
  return ok(userJson(await existingUser(call.pool, userIdFrom(call))));
}

/** PUT /admin/users/:id: email, phone, password, confirmations, metadata, role, ban. */
export async function updateUserById(call: Call): Promise<Reply> {
  await requireAdmin(call);
  const id = userIdFrom(call);
  const { nowMs, now } = clock(call);
  const p = adminParams(await body(call), nowMs);
  await existingUser(call.pool, id);
  const hash = p.password ? await hashPassword(p.password, call.options.bcryptCost) : null;
  try {
    const user = await asAdmin(call.pool, async (db) => {
      const current = await existingUser(db, id);
      await ensureUnique(db, p, id);
      const set = (column: string, value: unknown) =>
        db.query(`update auth.users set ${column} = $2, updated_at = $3 where id = $1`, [id, value, now]);
      if (p.role) await set('role', p.role);
      if (hash !== null) {
        await set('encrypted_password', hash);
        await db.query(`delete from auth.sessions where user_id = $1`, [id]);
      }
      if (p.email) {
        await set('email', p.email);
        await upsertEmailIdentity(db, id, p.email, p.emailConfirm, {}, now);
        if (current.row.is_anonymous && p.emailConfirm) await set('is_anonymous', false);
      }
      if (p.emailConfirm) await set('email_confirmed_at', current.row.email_confirmed_at ?? now);
      if (p.phone) await set('phone', p.phone);
      if (p.phoneConfirm) await set('phone_confirmed_at', now);
      if (p.appMetadata)
        await set('raw_app_meta_data', JSON.stringify(mergeMetadata(current.row.raw_app_meta_data, p.appMetadata)));
      if (p.userMetadata)
        await set('raw_user_meta_data', JSON.stringify(mergeMetadata(current.row.raw_user_meta_data, p.userMetadata)));
      if (p.banUntil !== undefined) {
        await set('banned_until', p.banUntil);
        if (p.banUntil !== null) await db.query(`delete from auth.sessions where user_id = $1`, [id]);
      }
      return (await loadUser(db, id))!;
    });
    return ok(userJson(user));
  } catch (error) {
    if (isUniqueViolation(error)) throw unprocessable('email_exists', EMAIL_EXISTS);
    throw error;
  }
}

/** DELETE /admin/users/:id: removes the user (identities and sessions cascade) or soft-deletes it. */
export async function deleteUserById(call: Call): Promise<Reply> {
  await requireAdmin(call);
  const id = userIdFrom(call);
  const params = await body(call, true);
  const soft = booleanField(params, 'should_soft_delete');
  const { now } = clock(call);
  await asAdmin(call.pool, async (db) => {
    await existingUser(db, id);
    if (!soft) {
      await db.query(`delete from auth.users where id = $1`, [id]);
      return;
    }
    // Soft delete keeps the row for references but frees the address and ends all access.
    await db.query(
      `update auth.users set email = null, phone = null, encrypted_password = '', deleted_at = coalesce(deleted_at, $2), updated_at = $2
        where id = $1`,
      [id, now],
    );
    await db.query(`delete from auth.identities where user_id = $1`, [id]);
    await db.query(`delete from auth.sessions where user_id = $1`, [id]);
  });
  return ok({});
}
