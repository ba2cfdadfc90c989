import type { IdGen, IdKind } from './types.ts';

const PREFIX: Record<IdKind, string> = { state: 's_', transition: 't_', invocation: 'i_' };
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Random ids (`s_…`, `t_…`, `i_…`): 12 base-36 characters (~62 bits), so two clients
 * creating states at the same moment practically never collide; ops still refuse a
 * duplicate id, so a collision is caught rather than merged.
 */
export const randomIds: IdGen = (kind) => {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  let out = PREFIX[kind];
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
};

/** Deterministic ids for tests: `s_<seed>_1`, `t_<seed>_2`, ... */
export function counterIds(seed = ''): IdGen {
  let n = 0;
  const tag = seed === '' ? '' : `${seed}_`;
  return (kind) => `${PREFIX[kind]}${tag}${++n}`;
}
