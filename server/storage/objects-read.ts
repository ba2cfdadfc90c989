import { sendJson, type RequestContext } from '../gateway/http.ts';
import { optionalInteger, readJson, type Json } from './body.ts';
import {
  asCaller,
  bucketSettings,
  callerOf,
  OBJECT_COLUMNS,
  objectAsAdmin,
  withIsoTimes,
  type ObjectRow,
  type BucketCall,
  type ObjectCall,
} from './context.ts';
import { infoBody, sendHead, sendObject } from './download.ts';
import { errors, StorageError } from './errors.ts';

/** Which door a read came through: the plain one, /authenticated/ or /public/. */
export type ReadMode = 'default' | 'authenticated' | 'public';

/** True when the request carried a JWT that verified (the anon key counts, as on hosted). */
export function isAuthenticated(ctx: RequestContext): boolean {
  return ctx.token !== null && ctx.authError === null;
}

/** A read of one object, in one of hosted's read modes. */
export type ReadCall = ObjectCall & { mode: ReadMode };

/**
 * Finds the object a read names, with hosted's rules: public buckets serve anyone and
 * skip RLS; private buckets need a verified JWT and an RLS SELECT on the object.
 */
export async function findReadable({ storage, ctx, bucket: bucketId, key, mode }: ReadCall): Promise<ObjectRow> {
  const bucket = await bucketSettings(storage, bucketId).catch((error: unknown) => {
    if (error instanceof StorageError && error.code === 'NoSuchBucket') return null;
    throw error;
  });
  if (!bucket) throw errors.noSuchBucket();
  if (mode === 'public' || !isAuthenticated(ctx)) {
    if (!bucket.public) throw errors.noSuchBucket();
  }
  if (bucket.public) return objectAsAdmin(storage, bucketId, key);
  const result = await asCaller(storage, callerOf(ctx), (client) =>
    client.query<ObjectRow>(`select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`, [
      bucketId,
      key,
    ]),
  );
  const row = result.rows[0];
  if (!row) throw errors.noSuchKey();
  return row;
}

export async function downloadObject(call: ReadCall): Promise<void> {
  const { storage, req, res, ctx } = call;
  const row = await findReadable(call);
  if (req.method === 'HEAD') {
    sendHead(res, row);
    return;
  }
  await sendObject(storage, req, res, row, { download: ctx.url.searchParams.get('download') });
}

export async function objectInfo(call: ReadCall): Promise<void> {
  const { res } = call;
  const row = await findReadable(call);
  const headers: Record<string, string> = {};
  const meta = row.metadata ?? {};
  if (typeof meta.eTag === 'string') headers.etag = meta.eTag;
  if (typeof meta.cacheControl === 'string') headers['cache-control'] = meta.cacheControl;
  headers['last-modified'] = new Date(row.updated_at).toUTCString();
  sendJson(res, 200, infoBody(row), headers);
}

const SORT_COLUMNS = new Set(['name', 'updated_at', 'created_at', 'last_accessed_at']);

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Lists one level below a prefix as hosted's storage.search does: folders first (one
 * entry per name, id null), then files, names relative to the prefix; `search` narrows
 * the names at that level by a case-insensitive prefix. RLS SELECT decides what shows.
 */
export async function listObjects({ storage, req, res, ctx, bucket: bucketId }: BucketCall): Promise<void> {
  const body: Json = await readJson(req, storage.deps.config.maxBodyBytes);
  let prefix = typeof body.prefix === 'string' ? body.prefix : '';
  if (body.prefix !== undefined && body.prefix !== null && typeof body.prefix !== 'string')
    throw errors.invalidRequest('body/prefix must be string');
  if (prefix.length > 0 && !prefix.endsWith('/')) prefix = `${prefix}/`;
  const search = typeof body.search === 'string' ? body.search : '';
  const limit = Math.min(optionalInteger(body.limit, 'body/limit', 1) ?? 100, 1000);
  const offset = optionalInteger(body.offset, 'body/offset', 0) ?? 0;
  const sortBy = (typeof body.sortBy === 'object' && body.sortBy !== null ? body.sortBy : {}) as Json;
  const column = typeof sortBy.column === 'string' && SORT_COLUMNS.has(sortBy.column) ? sortBy.column : 'name';
  const order = typeof sortBy.order === 'string' && sortBy.order.toLowerCase() === 'desc' ? 'desc' : 'asc';
  const level = `${prefix}${search}`.split('/').length;
  const pattern = `${escapeLike(`${prefix}${search}`.toLowerCase())}%`;
  const fileOrder =
    column === 'name'
      ? `lower(name) collate "C" ${order}, name collate "C" ${order}`
      : `(case when kind = 0 then lower(name) end) collate "C" ${order}, ${column} ${order}, name collate "C" ${order}`;
  const sql = `
    with matched as (
      select o.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata, o.path_tokens
        from storage.objects o
       where o.bucket_id = $1 and lower(o.name) like $2 escape '\\'
    ), entries as (
      select path_tokens[$3] as name, null::uuid as id, null::timestamptz as updated_at, null::timestamptz as created_at,
             null::timestamptz as last_accessed_at, null::jsonb as metadata, 0 as kind
        from matched where array_length(path_tokens, 1) > $3 group by path_tokens[$3]
      union all
      select path_tokens[$3], id, updated_at, created_at, last_accessed_at, metadata, 1
        from matched where array_length(path_tokens, 1) = $3
    )
    select name, id, updated_at, created_at, last_accessed_at, metadata from entries
     order by kind, ${fileOrder}
     limit $4 offset $5`;
  const result = await asCaller(storage, callerOf(ctx), (client) =>
    client.query<Record<string, unknown>>(sql, [bucketId, pattern, level, limit, offset]),
  );
  sendJson(res, 200, result.rows.map(withIsoTimes));
}
