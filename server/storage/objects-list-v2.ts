import { sendJson } from '../gateway/http.ts';
import { optionalBoolean, optionalInteger, readJson, type Json } from './body.ts';
import { asCaller, callerOf, withIsoTimes, type BucketCall } from './context.ts';
import { errors } from './errors.ts';

const SORT_COLUMNS = new Set(['name', 'updated_at', 'created_at']);

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The opaque cursor: where the next page starts in this listing's order. */
function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return 0;
  if (typeof raw !== 'string') throw errors.invalidRequest('body/cursor must be string');
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0) return parsed.o;
  } catch {
    // falls through to the error below
  }
  throw errors.invalidRequest('Invalid cursor');
}

/**
 * POST /object/list-v2/<bucket> (storage-js listV2): names starting with `prefix`, full
 * keys; with `with_delimiter` the next `/`-level is folded into folders (listed first).
 * Pages of `limit` (at most 1000) with `hasNext` and an opaque `nextCursor`. RLS decides.
 */
export async function listObjectsV2({ storage, req, res, ctx, bucket: bucketId }: BucketCall): Promise<void> {
  const body: Json = await readJson(req, storage.deps.config.maxBodyBytes);
  if (body.prefix !== undefined && body.prefix !== null && typeof body.prefix !== 'string')
    throw errors.invalidRequest('body/prefix must be string');
  const prefix = typeof body.prefix === 'string' ? body.prefix : '';
  const delimiter = optionalBoolean(body, 'with_delimiter') ?? false;
  const limit = Math.min(optionalInteger(body.limit, 'body/limit', 1) ?? 1000, 1000);
  const offset = decodeCursor(body.cursor);
  const sortBy = (typeof body.sortBy === 'object' && body.sortBy !== null ? body.sortBy : {}) as Json;
  const column = typeof sortBy.column === 'string' && SORT_COLUMNS.has(sortBy.column) ? sortBy.column : 'name';
  const order = typeof sortBy.order === 'string' && sortBy.order.toLowerCase() === 'desc' ? 'desc' : 'asc';
  const objectOrder = column === 'name' ? `name collate "C" ${order}` : `${column} ${order}, name collate "C" ${order}`;
  const sql = `
    with matched as (
      select name, id, updated_at, created_at, last_accessed_at, metadata,
             case when $3 and strpos(substr(name, $4 + 1), '/') > 0 then left(name, $4 + strpos(substr(name, $4 + 1), '/')) end as folder
        from storage.objects where bucket_id = $1 and name like $2 escape '\\'
    ), entries as (
      select folder as name, null::uuid as id, null::timestamptz as updated_at, null::timestamptz as created_at,
             null::timestamptz as last_accessed_at, null::jsonb as metadata, 0 as kind
        from matched where folder is not null group by folder
      union all
      select name, id, updated_at, created_at, last_accessed_at, metadata, 1 from matched where folder is null
    )
    select name, id, updated_at, created_at, last_accessed_at, metadata, kind from entries
     order by kind, (case when kind = 0 then name end) collate "C" ${order}, ${objectOrder}
     limit $5 offset $6`;
  const values = [bucketId, `${escapeLike(prefix)}%`, delimiter, prefix.length, limit + 1, offset];
  const result = await asCaller(storage, callerOf(ctx), (client) =>
    client.query<Record<string, unknown> & { name: string; kind: number }>(sql, values),
  );
  const rows = result.rows.slice(0, limit);
  const hasNext = result.rows.length > limit;
  const folders = rows.filter((r) => r.kind === 0).map((r) => ({ name: r.name, key: r.name.replace(/\/$/, '') }));
  const objects = rows.filter((r) => r.kind === 1).map(({ kind: _kind, ...r }) => withIsoTimes({ ...r, key: r.name }));
  sendJson(res, 200, { hasNext, folders, objects, ...(hasNext ? { nextCursor: encodeCursor(offset + limit) } : {}) });
}
