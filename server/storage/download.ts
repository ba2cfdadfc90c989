import fs from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { isoTime, type ObjectRow, type Storage } from './context.ts';
import { errors } from './errors.ts';

export interface ByteRange {
  start: number;
  end: number;
}

/** Parses a single `bytes=` range as hosted does; anything else is a 416. */
export function parseRange(header: string, size: number): ByteRange {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || size <= 0) throw errors.invalidRange();
  const [, from, to] = match as unknown as [string, string, string];
  if (!from && !to) throw errors.invalidRange();
  if (!from) {
    const suffix = Number(to);
    if (!Number.isSafeInteger(suffix) || suffix <= 0) throw errors.invalidRange();
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(from);
  const end = to ? Number(to) : size - 1;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start || start >= size)
    throw errors.invalidRange();
  return { start, end: Math.min(end, size - 1) };
}

function contentDisposition(download: string): string {
  if (download === '') return 'attachment;';
  const name = encodeURIComponent(download);
  return `attachment; filename=${name}; filename*=UTF-8''${name}`;
}

export interface SendOptions {
  /** The `download` query parameter: present (even empty) asks for an attachment. */
  download: string | null;
  /** Signed URLs answer with Expires (the token's expiry) instead of Cache-Control. */
  expires?: string;
  head?: boolean;
}

/**
 * Streams an object's bytes with the headers hosted storage sends: Content-Type, ETag,
 * Last-Modified, Cache-Control, Accept-Ranges, and 206 + Content-Range for a Range.
 * The file is opened before headers go out, so a concurrently removed version is a 404.
 */
export async function sendObject(
  storage: Storage,
  req: IncomingMessage,
  res: ServerResponse,
  row: ObjectRow,
  options: SendOptions,
): Promise<void> {
  const file = storage.files.fileFor(row.bucket_id, row.name, row.version);
  if (!file) throw errors.noSuchKey();
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    throw errors.noSuchKey();
  }
  try {
    const size = (await handle.stat()).size;
    const meta = row.metadata ?? {};
    const etag = typeof meta.eTag === 'string' ? meta.eTag : undefined;
    const headers: Record<string, string | number> = {
      'content-type': typeof meta.mimetype === 'string' ? meta.mimetype : 'application/octet-stream',
      'accept-ranges': 'bytes',
      'x-robots-tag': 'none',
      'last-modified': new Date(row.updated_at).toUTCString(),
    };
    if (etag) headers.etag = etag;
    if (options.expires) headers.expires = options.expires;
    else headers['cache-control'] = typeof meta.cacheControl === 'string' ? meta.cacheControl : 'no-cache';
    if (options.download !== null) headers['content-disposition'] = contentDisposition(options.download);

    const ifNoneMatch = req.headers['if-none-match'];
    if (etag && ifNoneMatch === etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    const rangeHeader = req.headers.range;
    const range = rangeHeader ? parseRange(rangeHeader, size) : null;
    const length = range ? range.end - range.start + 1 : size;
    headers['content-length'] = length;
    if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
    res.writeHead(range ? 206 : 200, headers);
    if (options.head || req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    const stream = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    await pipeline(stream, res).catch(() => undefined); // a client that hangs up is not an error
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Headers only, for HEAD on an object (hosted's head renderer). */
export function sendHead(res: ServerResponse, row: ObjectRow): void {
  const meta = row.metadata ?? {};
  const headers: Record<string, string | number> = {
    'content-type': typeof meta.mimetype === 'string' ? meta.mimetype : 'application/octet-stream',
    'last-modified': new Date(row.updated_at).toUTCString(),
    'cache-control': typeof meta.cacheControl === 'string' ? meta.cacheControl : 'no-cache',
  };
  if (typeof meta.eTag === 'string') headers.etag = meta.eTag;
  if (typeof meta.size === 'number') headers['content-length'] = meta.size;
  res.writeHead(200, headers);
  res.end();
}

/** The body of GET /object/info/...: hosted's info renderer, snake_case (storage-js camelises). */
export function infoBody(row: ObjectRow): Record<string, unknown> {
  const meta = row.metadata ?? {};
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    bucket_id: row.bucket_id,
    size: typeof meta.size === 'number' ? meta.size : null,
    content_type: typeof meta.mimetype === 'string' ? meta.mimetype : null,
    cache_control: typeof meta.cacheControl === 'string' ? meta.cacheControl : null,
    etag: typeof meta.eTag === 'string' ? meta.eTag : null,
    // Hosted answers {} for an object uploaded without user metadata.
    metadata: row.user_metadata ?? {},
    last_modified: isoTime(row.updated_at),
    created_at: isoTime(row.created_at),
  };
}
