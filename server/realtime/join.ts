import { randomUUID } from 'node:crypto';
import type { ChangeEvent } from './changes/types.ts';

/** A phx_join payload read the lenient way hosted Realtime reads it. */
export interface JoinConfig {
  self: boolean;
  ack: boolean;
  presenceKey: string;
  presenceEnabled: boolean;
  isPrivate: boolean;
  /** The client's postgres_changes entries, kept verbatim to echo them back with ids. */
  changes: ChangeRequest[];
  /** A token given in the join payload, if any (`access_token`, or the older `user_token`). */
  accessToken: string | null;
  /** `config.broadcast.replay`: resend stored private messages since a time; 'invalid' if unreadable. */
  replay: { since: number; limit: number } | 'invalid' | null;
}

export interface ChangeRequest {
  original: Record<string, unknown>;
  event: ChangeEvent;
  schema: string;
  table?: string;
  filter?: string;
}

export class JoinError extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Hosted's FlexibleBoolean: true/false and their string forms. */
function flag(value: unknown, fallback = false): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return fallback;
}

const EVENTS: Record<string, ChangeEvent> = { '*': '*', insert: 'INSERT', update: 'UPDATE', delete: 'DELETE' };

function changeRequest(entry: unknown, index: number): ChangeRequest {
  if (!isObject(entry))
    throw new JoinError(`Invalid postgres_changes binding at position ${index}: expected an object`);
  const event = typeof entry.event === 'string' ? EVENTS[entry.event.toLowerCase()] : undefined;
  if (!event)
    throw new JoinError(
      `Invalid postgres_changes binding at position ${index}: event must be one of *, INSERT, UPDATE, DELETE`,
    );
  if (typeof entry.schema !== 'string' || entry.schema === '') {
    throw new JoinError(`Invalid postgres_changes binding at position ${index}: schema is required`);
  }
  const optional = (name: 'table' | 'filter'): string | undefined => {
    const value = entry[name];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string')
      throw new JoinError(`Invalid postgres_changes binding at position ${index}: ${name} must be a string`);
    return value;
  };
  const table = optional('table');
  const filter = optional('filter');
  return { original: entry, event, schema: entry.schema, ...(table ? { table } : {}), ...(filter ? { filter } : {}) };
}

export function parseJoin(payload: unknown): JoinConfig {
  const body = isObject(payload) ? payload : {};
  const config = isObject(body.config) ? body.config : {};
  const broadcast = isObject(config.broadcast) ? config.broadcast : {};
  const presence = isObject(config.presence) ? config.presence : {};
  const rawKey = presence.key;
  // An empty key gets a generated one, so every socket is its own presence.
  const presenceKey =
    typeof rawKey === 'string' && rawKey !== '' ? rawKey : typeof rawKey === 'number' ? String(rawKey) : randomUUID();
  const rawChanges = config.postgres_changes;
  const changes = Array.isArray(rawChanges)
    ? rawChanges.filter((c) => c !== null && c !== undefined).map(changeRequest)
    : [];
  let replay: JoinConfig['replay'] = null;
  if (broadcast.replay !== undefined && broadcast.replay !== null) {
    const r = isObject(broadcast.replay) ? broadcast.replay : {};
    const limit = r.limit === undefined || r.limit === null ? 25 : r.limit;
    replay =
      Number.isInteger(r.since) && Number.isInteger(limit)
        ? { since: r.since as number, limit: limit as number }
        : 'invalid';
  }
  const token =
    typeof body.access_token === 'string'
      ? body.access_token
      : typeof body.user_token === 'string'
        ? body.user_token
        : null;
  return {
    self: flag(broadcast.self),
    ack: flag(broadcast.ack),
    presenceKey,
    presenceEnabled: flag(presence.enabled),
    isPrivate: flag(config.private),
    changes,
    accessToken: token && !token.startsWith('sb_') ? token : null,
    replay,
  };
}
