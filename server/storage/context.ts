import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import type { RequestContext } from '../gateway/http.ts';
import { withClaims, type RequestClaims } from '../postgres/pool.ts';
import type { BackendDeps } from '../service.ts';
import { ObjectFiles } from './disk.ts';
import { errors } from './errors.ts';

/** What every storage handler works with. */
export interface Storage {
  deps: BackendDeps;
  files: ObjectFiles;
}

/** One request as every route handler takes it: one object, named fields. */
export interface StorageCall {
  storage: Storage;
  req: IncomingMessage;
  res: ServerResponse;
  ctx: RequestContext;
}

/** A request on one bucket. */
export interface BucketCall extends StorageCall {
  bucket: string;
}

/** A request on one object of a bucket. */
export interface ObjectCall extends BucketCall {
  key: string;
}

export interface BucketRow {
  id: string;
  name: string;
  owner: string | null;
  owner_id: string | null;
  public: boolean;
  file_size_limit: string | null;
  allowed_mime_types: string[] | null;
  type: string;
  created_at: string;
  updated_at: string;
}

export interface ObjectRow {
  id: string;
  bucket_id: string;
  name: string;
  owner: string | null;
  owner_id: string | null;
  version: string | null;
  metadata: Record<string, unknown> | null;
  user_metadata: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
  last_accessed_at: string;
}

export const OBJECT_COLUMNS =
  'id, bucket_id, name, owner, owner_id, version, metadata, user_metadata, created_at, updated_at, last_accessed_at';

/** The caller's role and claims as withClaims wants them. */
export function callerOf(ctx: RequestContext): RequestClaims {
  return { role: ctx.role, claims: ctx.claims, method: ctx.method, path: ctx.path, headers: ctx.headers };
}

/** The service role acting for a signed upload token; owner comes from the token. */
export function serviceRoleFor(ctx: RequestContext, owner: string | undefined): RequestClaims {
  return {
    role: 'service_role',
    claims: { role: 'service_role', ...(owner ? { sub: owner } : {}) },
    method: ctx.method,
    path: ctx.path,
    headers: ctx.headers,
  };
}

/**
 * One transaction as the caller: RLS decides. Like hosted's storage API, it marks the
 * transaction as the API's own, so storage's delete-protection triggers let its deletes
 * through (a DELETE on storage.buckets or storage.objects from anywhere else is refused).
 */
export function asCaller<T>(
  storage: Storage,
  caller: RequestClaims,
  fn: (client: pg.PoolClient) => Promise<T>,
  options: { rollback?: boolean } = {},
): Promise<T> {
  return withClaims(storage.deps.pool, caller, fn, { ...options, settings: [['storage.allow_delete_query', 'true']] });
}

/** The caller's user id (JWT sub), stored in owner when it is a uuid and always in owner_id. */
export function ownerOf(caller: RequestClaims): { owner: string | null; ownerId: string | null } {
  const sub = typeof caller.claims.sub === 'string' && caller.claims.sub ? caller.claims.sub : null;
  const isUuid = sub !== null && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(sub);
  return { owner: isUuid ? sub : null, ownerId: sub };
}

/**
 * Reads a bucket's settings without RLS, as hosted does for uploads and downloads: the
 * limits apply whoever asks, and object policies (not bucket ones) decide access.
 */
export async function bucketSettings(storage: Storage, id: string): Promise<BucketRow> {
  const result = await storage.deps.pool.query<BucketRow>(
    `select id, name, owner, owner_id, public, file_size_limit::text, allowed_mime_types, type, created_at, updated_at
       from storage.buckets where id = $1`,
    [id],
  );
  const row = result.rows[0];
  if (!row) throw errors.noSuchBucket();
  return row;
}

/** The backend's own read of an object row (public and signed downloads, bookkeeping). */
export async function objectAsAdmin(storage: Storage, bucket: string, key: string): Promise<ObjectRow> {
  const result = await storage.deps.pool.query<ObjectRow>(
    `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
    [bucket, key],
  );
  const row = result.rows[0];
  if (!row) throw errors.noSuchKey();
  return row;
}

/** Serialises every writer of one key across transactions, released at commit. */
export async function lockKeys(client: pg.PoolClient, keys: { bucket: string; key: string }[]): Promise<void> {
  const names = [...new Set(keys.map((k) => `storage:${k.bucket}/${k.key}`))].sort();
  for (const name of names) await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [name]);
}

/** The smallest of the bucket's limit and the backend's. */
export function uploadLimit(storage: Storage, bucket: BucketRow): number {
  const bucketLimit = bucket.file_size_limit === null ? Number.POSITIVE_INFINITY : Number(bucket.file_size_limit);
  return Math.min(bucketLimit, storage.deps.config.maxUploadBytes);
}

const TIME_FIELDS = ['created_at', 'updated_at', 'last_accessed_at'];

/** Converts pg's timestamp text to ISO 8601 with milliseconds, as hosted storage sends it. */
export function isoTime(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** A row with its timestamps in hosted's format (Safari, for one, cannot parse pg's text). */
export function withIsoTimes<T extends object>(row: T): T {
  const copy = { ...row } as Record<string, unknown>;
  for (const field of TIME_FIELDS) if (field in copy) copy[field] = isoTime(copy[field]);
  return copy as T;
}
