import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { JsonObject } from './request.ts';

/** An auth.users row as the service reads it (timestamps already ISO-8601 in UTC). */
export interface UserRow {
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: string | null;
  phone: string | null;
  phone_confirmed_at: string | null;
  confirmed_at: string | null;
  confirmation_sent_at: string | null;
  recovery_sent_at: string | null;
  invited_at: string | null;
  reauthentication_sent_at: string | null;
  email_change: string | null;
  email_change_sent_at: string | null;
  last_sign_in_at: string | null;
  raw_app_meta_data: JsonObject | null;
  raw_user_meta_data: JsonObject | null;
  created_at: string | null;
  updated_at: string | null;
  banned_until: string | null;
  deleted_at: string | null;
  is_anonymous: boolean;
}

export interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: JsonObject;
  provider: string;
  last_sign_in_at: string | null;
  created_at: string | null;
  updated_at: string | null;
  email: string | null;
}

// GoTrue writes RFC 3339 UTC timestamps; pg's text form would leak the session time zone.
const iso = (column: string) =>
  `to_char(${column} at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ${column.replace(/^\w+\./, '')}`;

const USER_COLUMNS = [
  'u.id',
  'u.aud',
  'u.role',
  'u.email',
  'u.encrypted_password',
  iso('u.email_confirmed_at'),
  'u.phone',
  iso('u.phone_confirmed_at'),
  iso('u.confirmed_at'),
  iso('u.confirmation_sent_at'),
  iso('u.recovery_sent_at'),
  iso('u.invited_at'),
  iso('u.reauthentication_sent_at'),
  'u.email_change',
  iso('u.email_change_sent_at'),
  iso('u.last_sign_in_at'),
  'u.raw_app_meta_data',
  'u.raw_user_meta_data',
  iso('u.created_at'),
  iso('u.updated_at'),
  iso('u.banned_until'),
  iso('u.deleted_at'),
  'u.is_anonymous',
].join(', ');

const IDENTITY_COLUMNS = [
  'i.id',
  'i.provider_id',
  'i.user_id',
  'i.identity_data',
  'i.provider',
  iso('i.last_sign_in_at'),
  iso('i.created_at'),
  iso('i.updated_at'),
  'i.email',
].join(', ');

/** A user loaded with its identities, ready to render. */
export interface LoadedUser {
  row: UserRow;
  identities: IdentityRow[];
  /** MFA factors, rendered as GoTrue renders them (absent when none). */
  factors?: JsonObject[];
}

/** Anything that runs a query: the pool for lone reads, a transaction's client for writes. */
export type Db = pg.Pool | pg.ClientBase;

export const INSTANCE_ID = '00000000-0000-0000-0000-000000000000';

export async function findUserById(db: Db, id: string): Promise<UserRow | null> {
  const result = await db.query<UserRow>(`select ${USER_COLUMNS} from auth.users u where u.id = $1`, [id]);
  return result.rows[0] ?? null;
}

/** Email lookups ignore soft-deleted and SSO users, as GoTrue's FindUserByEmailAndAudience does. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const result = await db.query<UserRow>(
    `select ${USER_COLUMNS} from auth.users u
      where lower(u.email) = lower($1) and u.is_sso_user = false and u.deleted_at is null
      order by u.created_at limit 1`,
    [email],
  );
  return result.rows[0] ?? null;
}

export async function findUserByPhone(db: Db, phone: string): Promise<UserRow | null> {
  const result = await db.query<UserRow>(`select ${USER_COLUMNS} from auth.users u where u.phone = $1`, [phone]);
  return result.rows[0] ?? null;
}

/** One page of users, newest first, with their identities. */
export async function listUsersPage(db: Db, limit: number, offset: number): Promise<LoadedUser[]> {
  const result = await db.query<UserRow>(
    `select ${USER_COLUMNS} from auth.users u where u.aud = 'authenticated'
      order by u.created_at desc, u.id limit $1 offset $2`,
    [limit, offset],
  );
  const identities = await identitiesOf(
    db,
    result.rows.map((r) => r.id),
  );
  return result.rows.map((row) => ({ row, identities: identities.get(row.id) ?? [] }));
}

export async function identitiesOf(db: Db, userIds: string[]): Promise<Map<string, IdentityRow[]>> {
  const byUser = new Map<string, IdentityRow[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const result = await db.query<IdentityRow>(
    `select ${IDENTITY_COLUMNS} from auth.identities i where i.user_id = any($1::uuid[]) order by i.created_at, i.id`,
    [userIds],
  );
  for (const identity of result.rows) byUser.get(identity.user_id)?.push(identity);
  return byUser;
}

export async function loadUser(db: Db, id: string): Promise<LoadedUser | null> {
  const row = await findUserById(db, id);
  if (!row) return null;
  const identities = (await identitiesOf(db, [id])).get(id) ?? [];
  const factors = await db.query<JsonObject>(
    `select id, coalesce(friendly_name, '') as friendly_name, factor_type::text as factor_type, status::text as status,
            ${iso('created_at')}, ${iso('updated_at')}
       from auth.mfa_factors where user_id = $1 order by created_at, id`,
    [id],
  );
  return { row, identities, factors: factors.rows };
}

export interface NewUser {
  email: string | null;
  phone?: string | null;
  passwordHash: string | null;
  appMetadata: JsonObject;
  userMetadata: JsonObject;
  confirmed: boolean;
  isAnonymous: boolean;
  role?: string;
  id?: string;
}

/** Inserts a user row; `now` is the service clock so tests can move time. */
export async function insertUser(db: Db, user: NewUser, now: string): Promise<string> {
  const id = user.id ?? randomUUID();
  await db.query(
    `insert into auth.users (instance_id, id, aud, role, email, phone, encrypted_password, email_confirmed_at,
        confirmation_sent_at, raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at, is_anonymous)
     values ($1, $2, 'authenticated', $3, $4, $5, $6, $7, $8, $9, $10, false, $11, $11, $12)`,
    [
      INSTANCE_ID,
      id,
      user.role ?? 'authenticated',
      user.email,
      user.phone ?? null,
      user.passwordHash ?? '',
      user.confirmed && user.email ? now : null,
      !user.confirmed && user.email ? now : null,
      JSON.stringify(user.appMetadata),
      JSON.stringify(user.userMetadata),
      now,
      user.isAnonymous,
    ],
  );
  return id;
}

/** The email identity GoTrue keeps for every email user: provider_id is the user id. */
export async function upsertEmailIdentity(
  db: Db,
  userId: string,
  email: string,
  verified: boolean,
  extra: JsonObject,
  now: string,
): Promise<void> {
  const data: JsonObject = { ...extra, sub: userId, email, email_verified: verified, phone_verified: false };
  await db.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     values ($1::text, $1::uuid, $2, 'email', $3, $3, $3)
     on conflict (provider_id, provider) do update
       set identity_data = auth.identities.identity_data || excluded.identity_data, updated_at = excluded.updated_at`,
    [userId, JSON.stringify(data), now],
  );
}

/** GoTrue merges metadata updates key by key; a null value removes the key. */
export function mergeMetadata(current: JsonObject | null, updates: JsonObject): JsonObject {
  // A Map, not property assignment: a "__proto__" key must stay plain data.
  const merged = new Map(Object.entries(current ?? {}));
  for (const [key, value] of Object.entries(updates)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  return Object.fromEntries(merged);
}

function identityJson(identity: IdentityRow): JsonObject {
  return {
    identity_id: identity.id,
    id: identity.provider_id,
    user_id: identity.user_id,
    identity_data: identity.identity_data,
    provider: identity.provider,
    last_sign_in_at: identity.last_sign_in_at ?? undefined,
    created_at: identity.created_at,
    updated_at: identity.updated_at,
    email: identity.email ?? undefined,
  };
}

/** Renders a user exactly as GoTrue's models.User marshals: omitted fields absent, nulls as "". */
export function userJson({ row, identities, factors }: LoadedUser): JsonObject {
  const optional = (value: string | null) => (value === null || value === '' ? undefined : value);
  return {
    id: row.id,
    aud: row.aud ?? '',
    role: row.role ?? '',
    email: row.email ?? '',
    email_confirmed_at: optional(row.email_confirmed_at),
    phone: row.phone ?? '',
    phone_confirmed_at: optional(row.phone_confirmed_at),
    confirmation_sent_at: optional(row.confirmation_sent_at),
    invited_at: optional(row.invited_at),
    confirmed_at: optional(row.confirmed_at),
    recovery_sent_at: optional(row.recovery_sent_at),
    new_email: optional(row.email_change),
    email_change_sent_at: optional(row.email_change_sent_at),
    reauthentication_sent_at: optional(row.reauthentication_sent_at),
    last_sign_in_at: optional(row.last_sign_in_at),
    app_metadata: row.raw_app_meta_data ?? {},
    user_metadata: row.raw_user_meta_data ?? {},
    identities: identities.map(identityJson),
    ...(factors && factors.length > 0 ? { factors } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    banned_until: optional(row.banned_until),
    deleted_at: optional(row.deleted_at),
    is_anonymous: row.is_anonymous,
  };
}

export function isBanned(row: UserRow, nowMs: number): boolean {
  return row.banned_until !== null && Date.parse(row.banned_until) > nowMs;
}

export function hasPassword(row: UserRow): boolean {
  return typeof row.encrypted_password === 'string' && row.encrypted_password !== '';
}
