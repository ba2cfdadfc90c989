import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BackendDeps } from '../service.ts';
import type { ChangeFeed } from './changes/types.ts';

/**
 * A feed that accepts every binding and never delivers: what the channel layer runs
 * with when no postgres changes feed is present (server/realtime/changes/index.ts is
 * built separately and may not exist yet in a given checkout).
 */
export function idleChangeFeed(): ChangeFeed {
  return {
    validate: () => Promise.resolve(null),
    subscribe: () => ({ updateIdentity: () => undefined, unsubscribe: () => undefined }),
    ready: () => Promise.resolve(),
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

const FEED_MODULE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'changes', 'index.ts');

/** Loads `createChangeFeed(deps)` from ./changes/index.ts when it exists. */
export async function loadChangeFeed(deps: BackendDeps): Promise<ChangeFeed> {
  if (!existsSync(FEED_MODULE)) {
    deps.log('[realtime] no postgres changes feed (server/realtime/changes/index.ts); postgres_changes bindings deliver nothing');
    return idleChangeFeed();
  }
  const mod = (await import(pathToFileURL(FEED_MODULE).href)) as { createChangeFeed?: (deps: BackendDeps) => ChangeFeed };
  if (typeof mod.createChangeFeed !== 'function') throw new Error('server/realtime/changes/index.ts does not export createChangeFeed');
  return mod.createChangeFeed(deps);
}
