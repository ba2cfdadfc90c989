import { sendJson } from '../gateway/http.ts';
import { optionalBoolean, optionalInteger, optionalString, readJson, requiredString, type Json } from './body.ts';
import {
  asCaller,
  callerOf,
  ownerOf,
  withIsoTimes,
  type BucketRow,
  type Storage,
  type BucketCall,
  type StorageCall,
} from './context.ts';
import { errors } from './errors.ts';
import { mustBeValidBucketName } from './paths.ts';
import { deleteRows } from './remove.ts';

const BUCKET_COLUMNS = 'id, name, owner, public, created_at, updated_at, file_size_limit, allowed_mime_types, type';
/** GET /bucket/:id answers without `type`, as the CLI's storage does (storage-js's own snapshot). */
const ONE_BUCKET_COLUMNS = 'id, name, owner, public, created_at, updated_at, file_size_limit, allowed_mime_types';
const MIME_PATTERN = /^([a-zA-Z0-9\-+.]+)\/([a-zA-Z0-9\-+.]+|\*)(;\s*charset=[a-zA-Z0-9-]+)?$/;

/** `file_size_limit` as a number of bytes or a string like "1MB" (decimal units, as hosted). */
export function parseFileSizeLimit(value: unknown, globalMax: number): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  let bytes: number;
  if (typeof value === 'number') {
    bytes = value;
  } else if (typeof value === 'string') {
    const match = /^([0-9]+(?:\.[0-9]+)?)(gb|mb|kb|b)$/i.exec(value.trim());
    if (!match) throw errors.invalidFileSizeLimit();
    const amount = Number(Number.parseFloat(match[1]!).toPrecision(3));
    const unit = { gb: 1e9, mb: 1e6, kb: 1e3, b: 1 }[match[2]!.toLowerCase() as 'gb' | 'mb' | 'kb' | 'b'];
    bytes = Math.round(amount * unit);
  } else {
    throw errors.invalidFileSizeLimit();
  }
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw errors.invalidFileSizeLimit();
  if (bytes > globalMax) throw errors.entityTooLarge();
  return bytes;
}

function parseMimeTypes(value: unknown): string[] | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
    throw errors.invalidRequest('body/allowed_mime_types must be array');
  }
  const types = value.filter((v) => v);
  for (const type of types) if (type.length > 1000 || !MIME_PATTERN.test(type)) throw errors.invalidMimeType(type);
  return types;
}

/** Buckets as storage-js reads them: file_size_limit a number, not pg's bigint string. */
function render(row: BucketRow): Json {
  return withIsoTimes({ ...row, file_size_limit: row.file_size_limit === null ? null : Number(row.file_size_limit) });
}

function settings(body: Json, storage: Storage) {
  return {
    isPublic: optionalBoolean(body, 'public'),
    fileSizeLimit: parseFileSizeLimit(body.file_size_limit, storage.deps.config.maxUploadBytes),
    allowedMimeTypes: parseMimeTypes(body.allowed_mime_types),
  };
}

export async function createBucket({ storage, req, res, ctx }: StorageCall): Promise<void> {
  const body = await readJson(req, storage.deps.config.maxBodyBytes);
  const name = requiredString(body, 'name');
  const id = optionalString(body, 'id') || name;
  if (name.trim() !== name) throw errors.invalidBucketName();
  mustBeValidBucketName(name);
  mustBeValidBucketName(id);
  const { isPublic, fileSizeLimit, allowedMimeTypes } = settings(body, storage);
  const caller = callerOf(ctx);
  const { owner, ownerId } = ownerOf(caller);
  try {
    // No RETURNING: on hosted an INSERT policy alone is enough to create a bucket.
    await asCaller(storage, caller, (client) =>
      client.query(
        `insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types)
         values ($1, $2, $3, $4, $5, $6, $7)`,
        [id, name, owner, ownerId, isPublic ?? false, fileSizeLimit ?? null, allowedMimeTypes ?? null],
      ),
    );
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === '23505') throw errors.bucketExists();
    throw error;
  }
  sendJson(res, 200, { name });
}

export async function getBucket({ storage, res, ctx, bucket: id }: BucketCall): Promise<void> {
  const rows = await asCaller(storage, callerOf(ctx), (client) =>
    client.query<BucketRow>(`select ${ONE_BUCKET_COLUMNS} from storage.buckets where id = $1`, [id]),
  );
  const row = rows.rows[0];
  if (!row) throw errors.noSuchBucket();
  sendJson(res, 200, render(row));
}

const SORT_COLUMNS = new Set(['id', 'name', 'created_at', 'updated_at']);

export async function listBuckets({ storage, res, ctx }: StorageCall): Promise<void> {
  const query = ctx.url.searchParams;
  const limit = optionalInteger(query.get('limit') ?? undefined, 'limit', 1);
  const offset = optionalInteger(query.get('offset') ?? undefined, 'offset', 0);
  const sortColumn = query.get('sortColumn') ?? 'name';
  const sortOrder = (query.get('sortOrder') ?? 'asc').toLowerCase();
  if (!SORT_COLUMNS.has(sortColumn))
    throw errors.invalidRequest('querystring/sortColumn must be equal to one of the allowed values');
  if (sortOrder !== 'asc' && sortOrder !== 'desc')
    throw errors.invalidRequest('querystring/sortOrder must be equal to one of the allowed values');
  const values: unknown[] = [];
  let where = '';
  const search = query.get('search');
  if (search) {
    values.push(`%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where = `where name ilike $${values.length}`;
  }
  let page = '';
  if (limit !== undefined) page += ` limit ${limit}`;
  if (offset !== undefined) page += ` offset ${offset}`;
  const rows = await asCaller(storage, callerOf(ctx), (client) =>
    client.query<BucketRow>(
      `select ${BUCKET_COLUMNS} from storage.buckets ${where} order by ${sortColumn} ${sortOrder}${page}`,
      values,
    ),
  );
  sendJson(res, 200, rows.rows.map(render));
}

export async function updateBucket({ storage, req, res, ctx, bucket: id }: BucketCall): Promise<void> {
  const body = await readJson(req, storage.deps.config.maxBodyBytes);
  const { isPublic, fileSizeLimit, allowedMimeTypes } = settings(body, storage);
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (isPublic !== undefined) set('public', isPublic);
  if (fileSizeLimit !== undefined) set('file_size_limit', fileSizeLimit);
  if (allowedMimeTypes !== undefined) set('allowed_mime_types', allowedMimeTypes);
  if (sets.length === 0) throw errors.noContent();
  values.push(id);
  const result = await asCaller(storage, callerOf(ctx), (client) =>
    client.query(
      `update storage.buckets set ${sets.join(', ')}, updated_at = now() where id = $${values.length}`,
      values,
    ),
  );
  if (!result.rowCount) throw errors.noSuchBucket();
  sendJson(res, 200, { message: 'Successfully updated' });
}

/** Deletes an empty bucket; objects the caller cannot even see still count, as hosted. */
export async function deleteBucket({ storage, res, ctx, bucket: id }: BucketCall): Promise<void> {
  const exists = await storage.deps.pool.query('select 1 from storage.buckets where id = $1', [id]);
  if (!exists.rowCount) throw errors.noSuchBucket();
  const used = await storage.deps.pool.query('select 1 from storage.objects where bucket_id = $1 limit 1', [id]);
  if (used.rowCount) throw errors.bucketNotEmpty();
  const result = await asCaller(storage, callerOf(ctx), (client) =>
    client.query('delete from storage.buckets where id = $1', [id]),
  );
  if (!result.rowCount) throw errors.noSuchBucket();
  await storage.files.removeBucket(id).catch(() => undefined);
  sendJson(res, 200, { message: 'Successfully deleted' });
}

/**
 * Empties a bucket the caller can see. Unlike hosted (which queues an admin job), the
 * objects are deleted at once and through the caller's DELETE policies.
 */
export async function emptyBucket({ storage, res, ctx, bucket: id }: BucketCall): Promise<void> {
  const caller = callerOf(ctx);
  const visible = await asCaller(storage, caller, (client) =>
    client.query('select 1 from storage.buckets where id = $1', [id]),
  );
  if (!visible.rowCount) throw errors.noSuchBucket();
  await deleteRows(storage, caller, id, null);
  sendJson(res, 200, { message: 'Empty bucket has been queued. Completion may take up to an hour.' });
}
