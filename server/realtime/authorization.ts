import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { withClaims } from '../postgres/pool.ts';
import type { Identity } from './tokens.ts';

/**
 * Private channel authorization, as hosted Realtime runs it: RLS policies on
 * realtime.messages decide. Reading is a SELECT of probe rows (inserted by the
 * backend, then selected as the caller); writing is an INSERT as the caller. Both
 * run in a transaction that is always rolled back, with `realtime.topic` set to the
 * channel's sub-topic so policies can call realtime.topic().
 */

export type Extension = 'broadcast' | 'presence';

/** null: not checked yet; hosted keeps the same three states. */
export interface Policies {
  broadcast: { read: boolean | null; write: boolean | null };
  presence: { read: boolean | null; write: boolean | null };
}

export function emptyPolicies(): Policies {
  return { broadcast: { read: null, write: null }, presence: { read: null, write: null } };
}

function request(identity: Identity) {
  return { role: identity.role, claims: identity.claims, method: 'GET', path: '/realtime/v1/websocket' };
}

/** Sets what hosted sets for a policy check, beyond what withClaims already did. */
async function setTopic(client: pg.PoolClient, identity: Identity, topic: string): Promise<void> {
  const sub = typeof identity.claims.sub === 'string' ? identity.claims.sub : '';
  await client.query(
    `select set_config('realtime.topic', $1, true), set_config('request.jwt.claim.sub', $2, true),
            set_config('request.jwt.claim.role', $3, true)`,
    [topic, sub, identity.role],
  );
}

/** Which extensions the caller may read on `topic`. */
export async function checkRead(
  pool: pg.Pool,
  identity: Identity,
  topic: string,
  extensions: Extension[],
): Promise<Record<Extension, boolean | null>> {
  const ids = new Map(extensions.map((e) => [e, randomUUID()] as const));
  const result: Record<Extension, boolean | null> = { broadcast: null, presence: null };
  await withClaims(
    pool,
    request(identity),
    async (client) => {
      // The probe rows are the backend's own bookkeeping: written as the session's
      // superuser, then the role switches back so the SELECT runs under RLS.
      await client.query('set local role postgres');
      for (const [extension, id] of ids) {
        await client.query(`insert into realtime.messages (id, topic, extension) values ($1, $2, $3)`, [
          id,
          topic,
          extension,
        ]);
      }
      await client.query(`select set_config('role', $1, true)`, [identity.role]);
      await setTopic(client, identity, topic);
      const seen = await client.query<{ id: string }>(
        `select id::text as id from realtime.messages where id = any($1::uuid[])`,
        [[...ids.values()]],
      );
      const visible = new Set(seen.rows.map((r) => r.id));
      for (const [extension, id] of ids) result[extension] = visible.has(id);
    },
    { rollback: true },
  );
  return result;
}

/** Which extensions the caller may write (broadcast send, presence track) on `topic`. */
export async function checkWrite(
  pool: pg.Pool,
  identity: Identity,
  topic: string,
  extensions: Extension[],
): Promise<Record<Extension, boolean | null>> {
  const result: Record<Extension, boolean | null> = { broadcast: null, presence: null };
  await withClaims(
    pool,
    request(identity),
    async (client) => {
      await setTopic(client, identity, topic);
      for (const extension of extensions) {
        await client.query('savepoint probe');
        try {
          await client.query(`insert into realtime.messages (topic, extension) values ($1, $2)`, [topic, extension]);
          result[extension] = true;
          await client.query('release savepoint probe');
        } catch (error) {
          await client.query('rollback to savepoint probe');
          // 42501: RLS refused the row, or no INSERT privilege at all.
          if ((error as { code?: string }).code === '42501') result[extension] = false;
          else throw error;
        }
      }
    },
    { rollback: true },
  );
  return result;
}
