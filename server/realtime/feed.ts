import type { ChangeFeed } from './changes/types.ts';

/**
 * A feed that accepts every binding and never delivers: what the channel layer falls
 * back to when the postgres changes feed cannot start, so broadcast and presence keep
 * working; tests also stand it in for the real feed.
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
