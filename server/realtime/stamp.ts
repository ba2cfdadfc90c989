/**
 * Whose a message is, as the server says: every broadcast, over the socket or the REST API,
 * carries `meta.sender` set here from the caller's token, whatever the client sent, so a
 * receiver can check a payload's claims (a `userId`) against it.
 */

/** Broadcast metadata with `sender` set by the server (a client's own `sender` is replaced). */
export function stamped(meta: Record<string, unknown> | null, sender: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(meta ?? {}), sender };
  // A binary frame carries at most 255 bytes of metadata: the stamp wins over the rest.
  return Buffer.byteLength(JSON.stringify(out)) > 255 ? { sender } : out;
}

/** Whose a message is, as the server stamps it: the token's user, or null for anon and service keys. */
export function senderOf(claims: { sub?: unknown }): string | null {
  return typeof claims.sub === 'string' && claims.sub !== '' ? claims.sub : null;
}
