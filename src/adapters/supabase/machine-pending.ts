import type { SupabaseClient } from '@supabase/supabase-js';
import { finalize, Observable } from 'rxjs';
import { MAX_BATCH, sizeOf } from '../../lib/collab/doc.ts';
import type { RemoteBatch } from '../../lib/collab/types.ts';
import type { Op } from '../../lib/model/op-types.ts';
import type { CommitRequest, OpStreamEvent } from '../../lib/ports/document.ts';
import type { Database } from './database.types.ts';
import { factsAs, openChannel, type OpenChannel } from './realtime.ts';

/**
 * Edits before they are durable: each batch an editor appends also goes, the moment it
 * is sent, to the machine's other open documents on the private channel
 * `machine-pending:<machine id>` (readers receive, editors send: RLS on
 * realtime.messages, 20261127000200_machine_pending_channel.sql). They show it as pending
 * until the log's copy arrives on `machine-ops:<id>`. Whatever arrives here comes from
 * other people's browsers: only a well-formed batch whose `userId` is the sender the
 * server stamped becomes a fact; anything else is dropped, never thrown.
 */

type Client = SupabaseClient<Database>;
type Payload = Record<string, unknown>;

/** Batches bigger than this (as JSON) are not sent ahead: the server's own broadcast announces them too. */
export const PENDING_MAX_BYTES = 200_000;
const MAX_ID = 100;

const id = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_ID;
const opLike = (v: unknown): v is Op =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string';

/** A pending broadcast as a batch, or null if it is not one we understand. */
export function pendingBatch(payload: Payload): RemoteBatch<Op> | null {
  const { batchId, clientId, userId, ops } = payload;
  if (!id(batchId) || !id(clientId) || !id(userId)) return null;
  if (!Array.isArray(ops) || ops.length === 0 || ops.length > MAX_BATCH || !ops.every(opLike)) return null;
  return { batchId, clientId, userId, ops };
}

interface Link {
  channel: OpenChannel<never, Payload, never>;
  userId: string | null;
}

export interface PendingLinks {
  /** Others' batches on this machine, while a document of it is open. */
  events$(machineId: string): Observable<OpStreamEvent>;
  /** Sends this batch to the machine's other open documents, when one of ours is open (else nothing). */
  share(request: CommitRequest): void;
}

export function createPendingLinks(client: Client): PendingLinks {
  const links = new Map<string, Link>();
  return {
    events$(machineId) {
      const channel = openChannel<never, Payload, never>(client, {
        topic: `machine-pending:${machineId}`,
        broadcast: ['pending'],
        private: true,
      });
      const link: Link = { channel, userId: null };
      return new Observable<OpStreamEvent>((subscriber) => {
        links.set(machineId, link);
        // Who this client is, for the claim the server stamps against; known before any edit.
        void client.auth.getSession().then(({ data }) => {
          link.userId = data.session?.user.id ?? null;
        });
        return channel.facts$
          .pipe(
            factsAs((fact): OpStreamEvent | null => {
              if (fact.type === 'status') return fact.status === 'subscribed' ? { type: 'ops.aheadLive' } : null;
              if (fact.type !== 'broadcast') return null;
              const batch = pendingBatch(fact.payload);
              return batch ? { type: 'ops.seen', batch } : null;
            }),
            finalize(() => {
              if (links.get(machineId) === link) links.delete(machineId);
            }),
          )
          .subscribe(subscriber);
      });
    },
    share({ machineId, clientId, batchId, ops }) {
      const link = links.get(machineId);
      if (!link?.userId || sizeOf(ops) > PENDING_MAX_BYTES) return;
      link.channel.send('pending', { batchId, clientId, userId: link.userId, ops });
    },
  };
}
