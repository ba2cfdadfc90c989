import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { DatabaseError } from 'pg';
import type { RequestClaims } from '../postgres/pool.ts';
import { asCaller, lockKeys, ownerOf, uploadLimit, type BucketRow, type Storage } from './context.ts';
import { errors } from './errors.ts';
import { incomingFile, isHeaderSafe, mimeAllowed, writeFile } from './receive.ts';

/** Where an upload goes and who writes it. */
export interface WriteTarget {
  bucket: BucketRow;
  key: string;
  /** Overwrite an existing object (x-upsert, PUT, an upsert signed URL). */
  upsert: boolean;
  caller: RequestClaims;
}

/** The object metadata hosted storage keeps in storage.objects.metadata. */
export interface FileMetadata {
  eTag: string;
  size: number;
  mimetype: string;
  cacheControl: string;
  lastModified: string;
  contentLength: number;
  httpStatusCode: number;
  [key: string]: unknown;
}

const INSERT = `insert into storage.objects (id, bucket_id, name, owner, owner_id, metadata, user_metadata, version)
  values ($1, $2, $3, $4, $5, $6, $7, $8)`;
// No RETURNING on a plain insert: it would also demand a SELECT policy, which hosted does not.
const UPSERT = `${INSERT}
  on conflict (bucket_id, name) do update set owner = excluded.owner, owner_id = excluded.owner_id,
    metadata = excluded.metadata, user_metadata = excluded.user_metadata, version = excluded.version,
    updated_at = now(), last_accessed_at = now()
  returning id`;

/** Runs the row write that decides an upload; returns the object id. */
async function writeRow(
  client: pg.PoolClient,
  target: WriteTarget,
  metadata: Record<string, unknown>,
  userMetadata: Record<string, unknown> | null,
  version: string,
): Promise<string> {
  const { owner, ownerId } = ownerOf(target.caller);
  const id = randomUUID();
  const values = [id, target.bucket.id, target.key, owner, ownerId, metadata, userMetadata, version];
  if (!target.upsert) {
    await client.query(INSERT, values);
    return id;
  }
  const result = await client.query<{ id: string }>(UPSERT, values);
  return result.rows[0]?.id ?? id;
}

function duplicateAsKeyExists(error: unknown): unknown {
  return error instanceof DatabaseError && error.code === '23505' ? errors.keyExists() : error;
}

/**
 * Asks the database, as the caller, whether this write would pass (the same insert or
 * upsert, rolled back), so a refused upload is answered before its body is read.
 */
export async function checkWrite(
  storage: Storage,
  target: WriteTarget,
  metadata: Record<string, unknown>,
): Promise<void> {
  try {
    await asCaller(storage, target.caller, (client) => writeRow(client, target, metadata, null, randomUUID()), {
      rollback: true,
    });
  } catch (error) {
    throw duplicateAsKeyExists(error);
  }
}

/**
 * Makes a finished temp file the object's bytes. In one transaction as the caller: lock
 * the key, write the row (RLS decides), move the file into place, commit. The previous
 * version's file goes only after commit; on any failure the new file is removed and the
 * row rolled back, so nothing is left behind.
 */
export async function commitFile(
  storage: Storage,
  target: WriteTarget,
  temp: string,
  metadata: FileMetadata,
  userMetadata: Record<string, unknown> | null,
): Promise<string> {
  const { files } = storage;
  const version = randomUUID();
  const final = files.layout.objectFile(target.bucket.id, target.key, version);
  let placed = false;
  let previous: string | null = null;
  let id: string;
  try {
    id = await asCaller(storage, target.caller, async (client) => {
      await lockKeys(client, [{ bucket: target.bucket.id, key: target.key }]);
      if (target.upsert) {
        const old = await client.query<{ version: string | null }>(
          'select version from storage.objects where bucket_id = $1 and name = $2',
          [target.bucket.id, target.key],
        );
        previous = old.rows[0]?.version ?? null;
      }
      const rowId = await writeRow(client, target, metadata, userMetadata, version);
      await files.place(temp, final);
      placed = true;
      return rowId;
    });
  } catch (error) {
    if (placed) await files.remove(final, target.bucket.id);
    else await fs.rm(temp, { force: true });
    throw duplicateAsKeyExists(error);
  }
  // Committed: the old version's bytes are unreferenced now; losing this cleanup costs space only.
  if (previous)
    await files.remove(files.fileFor(target.bucket.id, target.key, previous), target.bucket.id).catch(() => undefined);
  return id;
}

export function fileMetadata(size: number, md5: string, mimetype: string, cacheControl: string): FileMetadata {
  return {
    eTag: `"${md5}"`,
    size,
    mimetype,
    cacheControl,
    lastModified: new Date().toISOString(),
    contentLength: size,
    httpStatusCode: 200,
  };
}

/**
 * The whole upload: limits and MIME type first, then the caller's permission, then the
 * body streamed to a temp file beside its destination, then commitFile.
 */
export async function receiveUpload(storage: Storage, req: IncomingMessage, target: WriteTarget): Promise<string> {
  const limit = uploadLimit(storage, target.bucket);
  const file = await incomingFile(req, limit);
  try {
    // Both are replayed as response headers on download; refuse what could not be one.
    if (!isHeaderSafe(file.mimetype)) throw errors.invalidMimeType(file.mimetype);
    if (!isHeaderSafe(file.cacheControl)) throw errors.invalidRequest('Invalid Cache-Control value');
    if (!mimeAllowed(file.mimetype, target.bucket.allowed_mime_types)) throw errors.invalidMimeType(file.mimetype);
    await checkWrite(storage, target, { mimetype: file.mimetype, contentLength: file.declaredLength ?? undefined });
  } catch (error) {
    file.stream.resume();
    throw error;
  }
  await storage.files.prepareBucket(target.bucket.id);
  const temp = storage.files.layout.tempFile(target.bucket.id, randomUUID());
  let written;
  try {
    written = await writeFile(file, temp, limit);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  const metadata = fileMetadata(written.size, written.md5, file.mimetype, file.cacheControl);
  return commitFile(storage, target, temp, metadata, file.userMetadata);
}
