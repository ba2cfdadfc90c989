import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../gateway/http.ts';
import { createBucket, deleteBucket, emptyBucket, getBucket, listBuckets, updateBucket } from './buckets.ts';
import type { Storage, StorageCall } from './context.ts';
import { errors, jwtFailureMessage } from './errors.ts';
import { downloadObject, listObjects, objectInfo } from './objects-read.ts';
import { listObjectsV2 } from './objects-list-v2.ts';
import { copyObject, deleteObject, deleteObjects, moveObject, uploadObject } from './objects-write.ts';
import { decodeSegment, keyFromRawSegments, mustBeValidBucketName } from './paths.ts';
import { renderImage } from './render.ts';
import { downloadSigned, renderSigned, signUploadUrl, signUrl, signUrls, uploadSigned } from './signing.ts';

type Handler = () => Promise<void>;

/**
 * Routes that act for the caller refuse a token that failed verification, in storage's
 * shape. Plain downloads and info treat it as anonymous, and public and signed-URL
 * routes ignore it, as hosted does.
 */
function requireValidToken(ctx: RequestContext): void {
  if (ctx.authError) throw errors.accessDenied(jwtFailureMessage(ctx.authError));
}

/** Hosted storage verifies a JWT on these routes; with neither apikey nor Authorization there is none to parse. */
function requireSomeToken(ctx: RequestContext): void {
  if (!ctx.token && !ctx.authError) throw errors.accessDenied('Invalid Compact JWS');
}

function bucketOf(raw: string | undefined): string {
  if (raw === undefined) throw errors.invalidBucketName();
  return mustBeValidBucketName(decodeSegment(raw));
}

/** `<bucket>/<key...>` from raw path segments. */
function target(segments: string[]): { bucket: string; key: string } {
  return { bucket: bucketOf(segments[0]), key: keyFromRawSegments(segments.slice(1)) };
}

function bucketRoutes(call: StorageCall, rest: string[]): Handler | null {
  const { ctx } = call;
  const m = ctx.method;
  if (rest.length === 0) {
    if (m === 'GET') return () => listBuckets(call);
    if (m === 'POST') return () => createBucket(call);
    return null;
  }
  const id = decodeSegment(rest[0]!);
  if (rest.length === 1) {
    if (m === 'GET') return () => getBucket({ ...call, bucket: id });
    if (m === 'PUT') return () => updateBucket({ ...call, bucket: id });
    if (m === 'DELETE') return () => deleteBucket({ ...call, bucket: id });
  }
  if (rest.length === 2 && rest[1] === 'empty' && m === 'POST') return () => emptyBucket({ ...call, bucket: id });
  return null;
}

function objectRoutes(call: StorageCall, rest: string[]): Handler | null {
  const { ctx } = call;
  const m = ctx.method;
  const read = m === 'GET' || m === 'HEAD';
  const [first, second] = rest;
  // Everything that acts for the caller needs a token that verified (or none at all).
  if (
    m === 'POST' &&
    (first === 'list' || first === 'list-v2' || first === 'move' || first === 'copy' || first === 'sign')
  )
    requireValidToken(ctx);
  if (m === 'POST' && first === 'upload' && second === 'sign') requireValidToken(ctx);
  switch (first) {
    case 'list':
      if (m === 'POST' && rest.length === 2) return () => listObjects({ ...call, bucket: bucketOf(second) });
      return null;
    case 'list-v2':
      if (m === 'POST' && rest.length === 2) return () => listObjectsV2({ ...call, bucket: bucketOf(second) });
      return null;
    case 'move':
      return m === 'POST' && rest.length === 1 ? () => moveObject(call) : null;
    case 'copy':
      return m === 'POST' && rest.length === 1 ? () => copyObject(call) : null;
    case 'sign': {
      const t = rest.slice(1);
      if (m === 'GET') return () => downloadSigned({ ...call, ...target(t) });
      if (m !== 'POST') return null;
      if (t.length === 1) return () => signUrls({ ...call, bucket: bucketOf(t[0]) });
      return () => signUrl({ ...call, ...target(t) });
    }
    case 'upload':
      if (second !== 'sign') break;
      if (m === 'POST') return () => signUploadUrl({ ...call, ...target(rest.slice(2)) });
      if (m === 'PUT') return () => uploadSigned({ ...call, ...target(rest.slice(2)) });
      return null;
    case 'public':
      if (!read) break;
      return () => downloadObject({ ...call, ...target(rest.slice(1)), mode: 'public' });
    case 'authenticated':
      if (!read) break;
      requireValidToken(ctx);
      return () => downloadObject({ ...call, ...target(rest.slice(1)), mode: 'authenticated' });
    case 'info': {
      if (m !== 'GET') break;
      const mode = second === 'public' ? 'public' : second === 'authenticated' ? 'authenticated' : 'default';
      if (mode === 'authenticated') requireValidToken(ctx);
      return () => objectInfo({ ...call, ...target(rest.slice(mode === 'default' ? 1 : 2)), mode });
    }
  }
  if (rest.length === 1 && m === 'DELETE') {
    requireValidToken(ctx);
    return () => deleteObjects({ ...call, bucket: bucketOf(first) });
  }
  if (rest.length < 2) return null;
  if (read) return () => downloadObject({ ...call, ...target(rest), mode: 'default' });
  if (m === 'POST' || m === 'PUT' || m === 'DELETE') {
    requireValidToken(ctx);
    const { bucket, key } = target(rest);
    if (m === 'DELETE') return () => deleteObject({ ...call, bucket, key });
    return () => uploadObject({ ...call, bucket, key });
  }
  return null;
}

const PREFIX = '/storage/v1';

/**
 * The path below the prefix exactly as the client sent it. The gateway's URL parser has
 * already resolved `.`/`..` (also `%2e`) segments and turned `\` into `/`; routing on
 * that would silently aim `a/../b` at `b`, so keys are read from the raw request line.
 */
function rawServicePath(req: IncomingMessage): string {
  // Absolute-form request targets (http://host/path, from proxies) carry the path after the origin.
  const raw = (req.url ?? '/').split('?')[0]!.replace(/^https?:\/\/[^/]*/i, '');
  if (raw !== PREFIX && !raw.startsWith(`${PREFIX}/`)) throw errors.invalidKey(raw);
  return raw.slice(PREFIX.length) || '/';
}

/** /render/image/{public,authenticated,sign}/:bucket/*key: image transformations (sharp). */
function renderRoutes(call: StorageCall, rest: string[]): Handler | null {
  const { ctx } = call;
  const [mode, ...path] = rest;
  if (path.length < 2) return null;
  const { bucket, key } = target(path);
  if (mode === 'sign') return () => renderSigned({ ...call, bucket, key });
  if (mode === 'public') return () => renderImage({ ...call, bucket, key, mode: 'public' });
  if (mode === 'authenticated') {
    requireValidToken(ctx);
    return () => renderImage({ ...call, bucket, key, mode: 'authenticated' });
  }
  return null;
}

/** Dispatches one request below /storage/v1, routing on raw (percent-encoded) segments. */
export async function route(s: Storage, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
  const segments = rawServicePath(req).split('/').slice(1);
  if (segments.length > 1 && segments[segments.length - 1] === '' && segments[0] === 'bucket') segments.pop();
  const [area, ...rest] = segments;
  const call: StorageCall = { storage: s, req, res, ctx };
  let handler: Handler | null = null;
  if (area === 'bucket') {
    requireSomeToken(ctx);
    requireValidToken(ctx);
    handler = bucketRoutes(call, rest);
  } else if (area === 'render' && rest[0] === 'image' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
    handler = renderRoutes(call, rest.slice(1));
  } else if (area === 'object') {
    const signedUpload = rest[0] === 'upload' && rest[1] === 'sign' && ctx.method === 'PUT';
    const write = ctx.method === 'POST' || ctx.method === 'PUT' || ctx.method === 'DELETE';
    if (write && !signedUpload) requireSomeToken(ctx);
    handler = objectRoutes(call, rest);
  }
  if (!handler) throw errors.routeNotFound(ctx.method, ctx.path);
  await handler();
}
