import fs from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import sharp, { type Metadata } from 'sharp';
import type { ObjectRow, Storage } from './context.ts';
import { errors } from './errors.ts';
import { findReadable, type ReadCall } from './objects-read.ts';

/** Image transformation options as storage-js sends them (query string or signed-URL body). */
export interface Transform {
  width?: number;
  height?: number;
  resize?: 'cover' | 'contain' | 'fill';
  quality?: number;
  format?: string;
}

const FIT = { cover: 'cover', contain: 'contain', fill: 'fill' } as const;
/** imgproxy's names for the resize modes, as hosted reports them in X-Transformations. */
const RESIZING_TYPE = { cover: 'fill', contain: 'fit', fill: 'force' } as const;
const OUTPUT = new Set(['webp', 'avif', 'jpeg', 'png']);

function dimension(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 2500) throw errors.invalidParameter(name);
  return n === 0 ? undefined : n;
}

/** Reads and checks transform options from a plain object (query parameters or a JSON body). */
export function parseTransform(source: Record<string, unknown>): Transform {
  const t: Transform = {};
  const width = dimension(source.width, 'width');
  const height = dimension(source.height, 'height');
  if (width !== undefined) t.width = width;
  if (height !== undefined) t.height = height;
  if (source.resize !== undefined && source.resize !== null && source.resize !== '') {
    if (typeof source.resize !== 'string' || !(source.resize in FIT)) throw errors.invalidParameter('resize');
    t.resize = source.resize as Transform['resize'];
  }
  if (source.quality !== undefined && source.quality !== null && source.quality !== '') {
    const q = Number(source.quality);
    if (!Number.isInteger(q) || q < 20 || q > 100) throw errors.invalidParameter('quality');
    t.quality = q;
  }
  if (typeof source.format === 'string' && source.format !== '') {
    if (source.format !== 'origin' && !OUTPUT.has(source.format)) throw errors.invalidParameter('format');
    t.format = source.format;
  }
  return t;
}

/** `height:200,width:200,resizing_type:fill,quality:60`: what hosted's X-Transformations says. */
export function describeTransform(t: Transform): string {
  const parts: string[] = [];
  if (t.height !== undefined) parts.push(`height:${t.height}`);
  if (t.width !== undefined) parts.push(`width:${t.width}`);
  if (t.width !== undefined || t.height !== undefined)
    parts.push(`resizing_type:${RESIZING_TYPE[t.resize ?? 'cover']}`);
  if (t.quality !== undefined) parts.push(`quality:${t.quality}`);
  return parts.join(',');
}

/** Transforms an object's image with sharp and sends it; the original format unless one is asked for. */
export async function sendTransformed(
  storage: Storage,
  req: IncomingMessage,
  res: ServerResponse,
  row: ObjectRow,
  t: Transform,
  extra: Record<string, string> = {},
): Promise<void> {
  const file = storage.files.fileFor(row.bucket_id, row.name, row.version);
  if (!file) throw errors.noSuchKey();
  let input: Buffer;
  try {
    input = await fs.readFile(file);
  } catch {
    throw errors.noSuchKey();
  }
  let image = sharp(input, { failOn: 'none' });
  let meta: Metadata;
  try {
    meta = await image.metadata();
  } catch {
    throw errors.invalidRequest('The object is not an image that can be transformed');
  }
  if (t.width !== undefined || t.height !== undefined) {
    image = image.resize({
      ...(t.width ? { width: t.width } : {}),
      ...(t.height ? { height: t.height } : {}),
      fit: FIT[t.resize ?? 'cover'],
    });
  }
  const format = t.format && t.format !== 'origin' ? t.format : meta.format;
  if (format === 'jpeg' || format === 'webp' || format === 'avif' || format === 'png') {
    image = image.toFormat(format, t.quality !== undefined ? { quality: t.quality } : {});
  }
  const { data, info } = await image.toBuffer({ resolveWithObject: true });
  const headers: Record<string, string | number> = {
    'content-type': `image/${info.format === 'heif' ? 'avif' : info.format}`,
    'content-length': data.length,
    'cache-control': typeof row.metadata?.cacheControl === 'string' ? row.metadata.cacheControl : 'no-cache',
    'x-transformations': describeTransform(t),
    ...extra,
  };
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : data);
}

/** GET /render/image/{public,authenticated}/:bucket/*key?width&height&resize&quality&format */
export async function renderImage(call: ReadCall): Promise<void> {
  const { storage, req, res, ctx } = call;
  const t = parseTransform(Object.fromEntries(ctx.url.searchParams));
  const row = await findReadable(call);
  await sendTransformed(storage, req, res, row, t);
}
