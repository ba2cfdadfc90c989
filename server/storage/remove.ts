import type { RequestClaims } from '../postgres/pool.ts';
import { asCaller, OBJECT_COLUMNS, type ObjectRow, type Storage } from './context.ts';

/**
 * Deletes object rows as the caller (RLS DELETE decides, silently skipping what it
 * refuses, as hosted) and, once committed, their files. `names` null means the whole
 * bucket. DELETE ... RETURNING reports the version each row had when it was deleted,
 * so the right file goes even when a concurrent upsert got there first.
 */
export async function deleteRows(
  storage: Storage,
  caller: RequestClaims,
  bucket: string,
  names: string[] | null,
): Promise<ObjectRow[]> {
  if (names !== null && names.length === 0) return [];
  const result = await asCaller(storage, caller, (client) =>
    names === null
      ? client.query<ObjectRow>(`delete from storage.objects where bucket_id = $1 returning ${OBJECT_COLUMNS}`, [
          bucket,
        ])
      : client.query<ObjectRow>(
          `delete from storage.objects where bucket_id = $1 and name = any($2::text[]) returning ${OBJECT_COLUMNS}`,
          [bucket, names],
        ),
  );
  for (const row of result.rows) {
    await storage.files.remove(storage.files.fileFor(bucket, row.name, row.version), bucket).catch(() => undefined);
  }
  return result.rows;
}
