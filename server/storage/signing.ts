import { sendJson } from '../gateway/http.ts';
import { JwtError, signJwt, verifyJwt, type JwtClaims } from '../jwt.ts';
import { expiresInSeconds, readJson, stringArray } from './body.ts';
import {
  asCaller,
  bucketSettings,
  callerOf,
  objectAsAdmin,
  ownerOf,
  serviceRoleFor,
  type Storage,
  type BucketCall,
  type ObjectCall,
} from './context.ts';
import { sendObject } from './download.ts';
import { errors, jwtFailureMessage } from './errors.ts';
import { parseTransform, sendTransformed } from './render.ts';
import { checkWrite, receiveUpload } from './upload.ts';

/** Hosted's default lifetime of a signed upload URL, in seconds. */
const UPLOAD_URL_SECONDS = 2 * 60 * 60;

type Scope = 'download' | 'upload';

/** A signed-URL token: a JWT over the object path, signed with the project's JWT secret. */
function signToken(storage: Storage, claims: JwtClaims, seconds: number): string {
  const iat = Math.floor(Date.now() / 1000);
  return signJwt({ ...claims, iat, exp: iat + seconds }, storage.deps.config.jwtSecret);
}

/**
 * Verifies a signed-URL token for `<bucket>/<key>` and the action it was issued for.
 * Legacy tokens without a scope count as downloads unless they carry `upsert`, as hosted.
 */
export function verifyToken(
  storage: Storage,
  token: string | null,
  bucket: string,
  key: string,
  scope: Scope,
): JwtClaims {
  if (!token) throw errors.invalidJwt('Invalid Compact JWS');
  let claims: JwtClaims;
  try {
    claims = verifyJwt(token, storage.deps.config.jwtSecret);
  } catch (error) {
    if (error instanceof JwtError) throw errors.invalidJwt(jwtFailureMessage(error));
    throw error;
  }
  const scoped = claims.scope === scope || (claims.scope === undefined && 'upsert' in claims === (scope === 'upload'));
  if (!scoped) throw errors.invalidSignature(`Token is not scoped for ${scope}`);
  if (claims.url !== `${bucket}/${key}`) throw errors.invalidSignature();
  return claims;
}

/** POST /object/sign/:bucket/*key {expiresIn} -> {signedURL}; the caller must be able to SELECT it. */
export async function signUrl({ storage, req, res, ctx, bucket, key }: ObjectCall): Promise<void> {
  const body = await readJson(req, storage.deps.config.maxBodyBytes);
  const seconds = expiresInSeconds(body);
  const found = await asCaller(storage, callerOf(ctx), (client) =>
    client.query('select 1 from storage.objects where bucket_id = $1 and name = $2', [bucket, key]),
  );
  if (!found.rowCount) throw errors.noSuchKey();
  // With transform options the URL is a signed render: the options travel inside the token.
  const transform =
    typeof body.transform === 'object' && body.transform !== null && Object.keys(body.transform).length > 0
      ? parseTransform(body.transform as Record<string, unknown>)
      : null;
  const token = signToken(
    storage,
    { url: `${bucket}/${key}`, scope: 'download', ...(transform ? { transformations: transform } : {}) },
    seconds,
  );
  const base = transform ? '/render/image/sign' : '/object/sign';
  sendJson(res, 200, { signedURL: `${base}/${bucket}/${key}?token=${token}` });
}

/** GET /render/image/sign/:bucket/*key?token=...: the transform signed into the token, applied. */
export async function renderSigned({ storage, req, res, ctx, bucket, key }: ObjectCall): Promise<void> {
  const claims = verifyToken(storage, ctx.url.searchParams.get('token'), bucket, key, 'download');
  const row = await objectAsAdmin(storage, bucket, key);
  const t =
    typeof claims.transformations === 'object' && claims.transformations !== null
      ? parseTransform(claims.transformations as Record<string, unknown>)
      : {};
  const extra: Record<string, string> =
    typeof claims.exp === 'number' ? { expires: new Date(claims.exp * 1000).toUTCString() } : {};
  await sendTransformed(storage, req, res, row, t, extra);
}

/** POST /object/sign/:bucket {expiresIn, paths} -> one entry per path, an error for unseen ones. */
export async function signUrls({ storage, req, res, ctx, bucket }: BucketCall): Promise<void> {
  const body = await readJson(req, storage.deps.config.maxBodyBytes);
  const seconds = expiresInSeconds(body);
  const paths = stringArray(body, 'paths');
  const found = await asCaller(storage, callerOf(ctx), (client) =>
    client.query<{ name: string }>('select name from storage.objects where bucket_id = $1 and name = any($2::text[])', [
      bucket,
      paths,
    ]),
  );
  const visible = new Set(found.rows.map((r) => r.name));
  sendJson(
    res,
    200,
    paths.map((path) =>
      visible.has(path)
        ? {
            error: null,
            path,
            signedURL: `/object/sign/${bucket}/${path}?token=${signToken(storage, { url: `${bucket}/${path}`, scope: 'download' }, seconds)}`,
          }
        : { error: 'Either the object does not exist or you do not have access to it', path, signedURL: null },
    ),
  );
}

/** GET /object/sign/:bucket/*key?token=...: the token is the only credential. */
export async function downloadSigned({ storage, req, res, ctx, bucket, key }: ObjectCall): Promise<void> {
  const claims = verifyToken(storage, ctx.url.searchParams.get('token'), bucket, key, 'download');
  const row = await objectAsAdmin(storage, bucket, key);
  const expires = typeof claims.exp === 'number' ? new Date(claims.exp * 1000).toUTCString() : undefined;
  await sendObject(storage, req, res, row, {
    download: ctx.url.searchParams.get('download'),
    ...(expires ? { expires } : {}),
  });
}

/**
 * POST /object/upload/sign/:bucket/*key -> {url, token}. The caller's INSERT (or upsert,
 * with x-upsert) permission is checked now; the token carries owner and upsert.
 */
export async function signUploadUrl({ storage, res, ctx, bucket: bucketId, key }: ObjectCall): Promise<void> {
  const bucket = await bucketSettings(storage, bucketId);
  const caller = callerOf(ctx);
  const upsert = ctx.headers['x-upsert'] === 'true';
  await checkWrite(storage, { bucket, key, upsert, caller }, {});
  const { ownerId } = ownerOf(caller);
  const token = signToken(
    storage,
    { ...(ownerId ? { owner: ownerId } : {}), url: `${bucketId}/${key}`, upsert, scope: 'upload' },
    UPLOAD_URL_SECONDS,
  );
  sendJson(res, 200, { url: `/object/upload/sign/${bucketId}/${key}?token=${token}`, token });
}

/** PUT /object/upload/sign/:bucket/*key?token=...: uploads with the signer's permission, no auth. */
export async function uploadSigned({ storage, req, res, ctx, bucket: bucketId, key }: ObjectCall): Promise<void> {
  const claims = verifyToken(storage, ctx.url.searchParams.get('token'), bucketId, key, 'upload');
  const bucket = await bucketSettings(storage, bucketId);
  const owner = typeof claims.owner === 'string' ? claims.owner : undefined;
  const id = await receiveUpload(storage, req, {
    bucket,
    key,
    upsert: claims.upsert === true,
    caller: serviceRoleFor(ctx, owner),
  });
  sendJson(res, 200, { Id: id, Key: `${bucketId}/${key}` });
}
