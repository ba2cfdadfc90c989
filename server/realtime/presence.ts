import { randomBytes } from 'node:crypto';

/**
 * Presence for one topic, shaped like Phoenix.Presence: state is
 * `{ key: { metas: [{ phx_ref, ...meta }] } }`, and every change is a diff
 * `{ joins, leaves }` in the same shape. Each tracker (one joined channel) holds at
 * most one presence; tracking again replaces it with a new phx_ref.
 */

export type Meta = Record<string, unknown> & { phx_ref: string };
export type PresenceMap = Record<string, { metas: Meta[] }>;
export interface PresenceDiff {
  joins: PresenceMap;
  leaves: PresenceMap;
}

interface Entry {
  key: string;
  meta: Meta;
  /** The tracked payload as JSON, so tracking the same payload again changes nothing. */
  json: string;
}

function newRef(): string {
  return randomBytes(8).toString('base64url');
}

function single(key: string, meta: Meta): PresenceMap {
  return { [key]: { metas: [meta] } };
}

export class TopicPresence<Tracker> {
  private readonly entries = new Map<Tracker, Entry>();

  get size(): number {
    return this.entries.size;
  }

  state(): PresenceMap {
    const out: PresenceMap = {};
    for (const { key, meta } of this.entries.values()) {
      (out[key] ??= { metas: [] }).metas.push(meta);
    }
    return out;
  }

  /** Tracks (or updates) the tracker's presence; returns the diff to publish, null if unchanged. */
  track(tracker: Tracker, key: string, payload: Record<string, unknown>): PresenceDiff | null {
    const previous = this.entries.get(tracker);
    const json = JSON.stringify(payload);
    if (previous && previous.key === key && previous.json === json) return null;
    const meta: Meta = { ...payload, phx_ref: newRef() };
    if (previous) meta.phx_ref_prev = previous.meta.phx_ref;
    this.entries.set(tracker, { key, meta, json });
    return {
      joins: single(key, meta),
      leaves: previous ? single(previous.key, previous.meta) : {},
    };
  }

  /** Removes the tracker's presence; null when it had none. */
  untrack(tracker: Tracker): PresenceDiff | null {
    const previous = this.entries.get(tracker);
    if (!previous) return null;
    this.entries.delete(tracker);
    return { joins: {}, leaves: single(previous.key, previous.meta) };
  }

  has(tracker: Tracker): boolean {
    return this.entries.has(tracker);
  }
}
