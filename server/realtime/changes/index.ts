import type { BackendDeps } from '../../service.ts';
import { Catalog } from './catalog.ts';
import { ChangeDecoder } from './decode.ts';
import { ReplicationReader, type StreamMessage } from './replication.ts';
import { SubscriberRegistry } from './registry.ts';
import { ChangeRouter } from './router.ts';
import { newSlotName } from './slots.ts';
import { ensureSqlHelpers } from './sqlfns.ts';
import type { ChangeFeed } from './types.ts';
import { validateBindings } from './validate.ts';

export type * from './types.ts';

/** Options beyond BackendDeps, for tests and benchmarks. */
export interface ChangeFeedOptions {
  /** Called with each decoded change before routing (the bench's no-RLS baseline). */
  onChange?: (change: import('./decode.ts').WalChange) => void;
  maxQueue?: number;
}

/**
 * The postgres changes feed: one replication reader on a slot of its own, one decoder,
 * one router with per-identity RLS checks. The channel layer validates bindings, registers
 * subscribers and receives each change it may show them.
 */
export function createChangeFeed(
  deps: BackendDeps,
  options: ChangeFeedOptions = {},
): ChangeFeed & { readonly slotName: string } {
  const { pool, log } = deps;
  const registry = new SubscriberRegistry();
  const decoder = new ChangeDecoder(new Catalog(pool), log);
  const router = new ChangeRouter({ pool, registry, log, maxQueue: options.maxQueue });
  const slotName = newSlotName();
  const onMessage = (message: StreamMessage): void => {
    if (message.tag === 'decode-error') {
      log(`[realtime] undecodable replication message skipped: ${String(message.error)}`);
      return;
    }
    const change = decoder.decode(message);
    if (!change) return;
    options.onChange?.(change);
    router.push(change);
  };
  const reader = new ReplicationReader({ databaseUrl: deps.adminDatabaseUrl, pool, slotName, log, onMessage });
  let started: Promise<void> | null = null;

  return {
    slotName,
    validate(bindings, identity) {
      return validateBindings(pool, bindings, identity);
    },
    subscribe(identity, bindings, deliver) {
      const subscriber = registry.add(identity, bindings, deliver);
      return {
        updateIdentity(next) {
          registry.updateIdentity(subscriber, next);
        },
        unsubscribe() {
          registry.remove(subscriber);
        },
      };
    },
    ready() {
      return reader.ready;
    },
    start() {
      started ??= (async () => {
        await ensureSqlHelpers(pool);
        await reader.start();
        // Start-up waits for streaming, so "Subscribed to PostgreSQL" is true from the
        // first join; if the database is slow to give us a slot, start-up goes on and
        // ready() still resolves once streaming begins.
        const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000).unref());
        if ((await Promise.race([reader.ready.then(() => 'ready' as const), timeout])) === 'timeout') {
          log('[realtime] replication not streaming yet; continuing start-up');
        }
      })();
      return started;
    },
    async close() {
      await reader.close();
    },
  };
}
