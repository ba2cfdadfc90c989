import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { sendJson } from '../gateway/http.ts';
import { optionalBoolean, optionalString, readJson, requiredString, stringArray } from './body.ts';
import {
  asCaller,
  bucketSettings,
  callerOf,
  lockKeys,
  OBJECT_COLUMNS,
  ownerOf,
  withIsoTimes,
  type ObjectRow,
  type Storage,
  type BucketCall,
  type ObjectCall,
  type StorageCall,
} from './context.ts';
import { errors } from './errors.ts';
import { mustBeValidBucketName, mustBeValidKey } from './paths.ts';
import { isHeaderSafe } from './receive.ts';
import { deleteRows } from './remove.ts';
import { commitFile, receiveUpload, type FileMetadata } from './upload.ts';

function userMetadataFrom(header: string | undefined): Record<string, unknown> | null {
  if (!header) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** POST (x-upsert decides) and PUT (always overwrite) /object/:bucket/*key. */
export async function uploadObject({ storage, req, res, ctx, bucket: bucketId, key }: ObjectCall): Promise<void> {
  const bucket = await bucketSettings(storage, bucketId);
  const upsert = req.method === 'PUT' || ctx.headers['x-upsert'] === 'true';
  const id = await receiveUpload(storage, req, { bucket, key, upsert, caller: callerOf(ctx) });
  sendJson(res, 200, { Id: id, Key: `${bucketId}/${key}` });
}

/** DELETE /object/:bucket/*key: 404 when absent, 403 when RLS refuses, as hosted. */
export async function deleteObject({ storage, res, ctx, bucket: bucketId, key }: ObjectCall): Promise<void> {
  const exists = await storage.deps.pool.query('select 1 from storage.objects where bucket_id = $1 and name = $2', [
    bucketId,
    key,
  ]);
  if (!exists.rowCount) throw errors.noSuchKey();
  const deleted = await deleteRows(storage, callerOf(ctx), bucketId, [key]);
  if (deleted.length === 0) throw errors.accessDenied('Access denied');
  sendJson(res, 200, { message: 'Successfully deleted' });
}

/** DELETE /object/:bucket {prefixes}: removes what the caller may delete, returns those rows. */
export async function deleteObjects({ storage, req, res, ctx, bucket: bucketId }: BucketCall): Promise<void> {
  const body = await readJson(req, storage.deps.config.maxBodyBytes);
  const prefixes = stringArray(body, 'prefixes');
  if (prefixes.length < 1 || prefixes.length > 1000)
    throw errors.invalidRequest('body/prefixes must have between 1 and 1000 items');
  const rows = await deleteRows(storage, callerOf(ctx), bucketId, prefixes);
  sendJson(res, 200, rows.map(withIsoTimes));
}

interface Transfer {
  bucketId: string;
  sourceKey: string;
  destinationBucket: string;
  destinationKey: string;
}

interface CopyOptions {
  /** false: take cacheControl/mimetype from `metadata` and user metadata from x-metadata. */
  copyMetadata: boolean | undefined;
  metadata: { cacheControl?: string; mimetype?: string };
}

function fileMetadataOverrides(value: unknown): CopyOptions['metadata'] {
  if (typeof value !== 'object' || value === null) return {};
  const { cacheControl, mimetype } = value as Record<string, unknown>;
  for (const v of [cacheControl, mimetype])
    if (typeof v === 'string' && !isHeaderSafe(v)) throw errors.invalidRequest('Invalid metadata value');
  return {
    ...(typeof cacheControl === 'string' ? { cacheControl } : {}),
    ...(typeof mimetype === 'string' ? { mimetype } : {}),
  };
}

async function readTransfer(storage: Storage, req: IncomingMessage): Promise<Transfer & CopyOptions> {
  const body = await readJson(req, storage.deps.config.maxBodyBytes);
  const bucketId = mustBeValidBucketName(requiredString(body, 'bucketId'));
  const sourceKey = requiredString(body, 'sourceKey');
  const destinationKey = mustBeValidKey(requiredString(body, 'destinationKey'));
  const destinationBucket = mustBeValidBucketName(optionalString(body, 'destinationBucket') || bucketId);
  return {
    bucketId,
    sourceKey,
    destinationBucket,
    destinationKey,
    copyMetadata: optionalBoolean(body, 'copyMetadata'),
    metadata: fileMetadataOverrides(body.metadata),
  };
}

/**
 * POST /object/move: one transaction as the caller finds the source (SELECT) and renames
 * the row (UPDATE, new owner = caller); the file is renamed inside it and renamed back
 * if the transaction fails. An existing destination is a 409.
 */
export async function moveObject({ storage, req, res, ctx }: StorageCall): Promise<void> {
  const t = await readTransfer(storage, req);
  const caller = callerOf(ctx);
  if (t.bucketId === t.destinationBucket && t.sourceKey === t.destinationKey) {
    sendJson(res, 200, { message: 'Successfully moved' });
    return;
  }
  const { files } = storage;
  const moved: { from: string; to: string }[] = [];
  let row: ObjectRow;
  try {
    row = await asCaller(storage, caller, async (client) => {
      await lockKeys(client, [
        { bucket: t.bucketId, key: t.sourceKey },
        { bucket: t.destinationBucket, key: t.destinationKey },
      ]);
      const found = await client.query<ObjectRow>(
        `select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`,
        [t.bucketId, t.sourceKey],
      );
      if (!found.rows[0]) throw errors.noSuchKey();
      const { owner, ownerId } = ownerOf(caller);
      const updated = await client.query<ObjectRow>(
        `update storage.objects set bucket_id = $3, name = $4, owner = $5, owner_id = $6, updated_at = now(), last_accessed_at = now()
          where bucket_id = $1 and name = $2`,
        [t.bucketId, t.sourceKey, t.destinationBucket, t.destinationKey, owner, ownerId],
      );
      if (!updated.rowCount) throw errors.noSuchKey();
      const source = found.rows[0];
      const from = files.fileFor(t.bucketId, source.name, source.version);
      const to = files.fileFor(t.destinationBucket, t.destinationKey, source.version);
      if (from && to) {
        await files.prepareBucket(t.destinationBucket);
        await files.place(from, to).catch((error: unknown) => {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        });
        moved.push({ from, to });
      }
      return source;
    });
  } catch (error) {
    for (const { from, to } of moved) await files.place(to, from).catch(() => undefined);
    if (error instanceof Error && 'code' in error && error.code === '23505') throw errors.keyExists();
    throw error;
  }
  for (const { from } of moved) await files.remove(from, t.bucketId).catch(() => undefined);
  sendJson(res, 200, { message: 'Successfully moved', Id: row.id, Key: t.destinationKey });
}

/**
 * POST /object/copy: reads the source as the caller (SELECT), copies its bytes to a temp
 * file beside the destination, then writes the destination like an upload (INSERT, or
 * upsert with x-upsert) through commitFile.
 */
export async function copyObject({ storage, req, res, ctx }: StorageCall): Promise<void> {
  const t = await readTransfer(storage, req);
  const caller = callerOf(ctx);
  const found = await asCaller(storage, caller, (client) =>
    client.query<ObjectRow>(`select ${OBJECT_COLUMNS} from storage.objects where bucket_id = $1 and name = $2`, [
      t.bucketId,
      t.sourceKey,
    ]),
  );
  const source = found.rows[0];
  if (!source) throw errors.noSuchKey();
  const bucket = await bucketSettings(storage, t.destinationBucket);
  const sourceFile = storage.files.fileFor(source.bucket_id, source.name, source.version);
  if (!sourceFile) throw errors.noSuchKey();
  await storage.files.prepareBucket(bucket.id);
  const temp = storage.files.layout.tempFile(bucket.id, randomUUID());
  try {
    await fs.copyFile(sourceFile, temp, fs.constants.COPYFILE_EXCL);
  } catch {
    await fs.rm(temp, { force: true });
    throw errors.noSuchKey();
  }
  const keep = t.copyMetadata !== false;
  const metadata = {
    ...(source.metadata ?? {}),
    ...(keep ? {} : t.metadata),
    lastModified: new Date().toISOString(),
  } as FileMetadata;
  const userMetadata = keep ? source.user_metadata : userMetadataFrom(ctx.headers['x-metadata']);
  const upsert = ctx.headers['x-upsert'] === 'true';
  const id = await commitFile(storage, { bucket, key: t.destinationKey, upsert, caller }, temp, metadata, userMetadata);
  const { owner, ownerId } = ownerOf(caller);
  sendJson(res, 200, {
    Id: id,
    Key: `${bucket.id}/${t.destinationKey}`,
    id,
    name: t.destinationKey,
    bucket_id: bucket.id,
    owner,
    owner_id: ownerId,
    metadata,
    user_metadata: userMetadata,
  });
}
