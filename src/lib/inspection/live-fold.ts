import type { StoredInspectionEvent } from './protocol.ts';
import { applyEvent, type InspectedActor, type InspectionLogRow } from './replay.ts';

/**
 * A session's fold kept between renders: each new list of events is folded from where the
 * last fold stopped, and folded again from the start only when the list is not the old one
 * plus more (another session, events merged in before the end, a scrub backwards).
 *
 * What did not change keeps its identity, so memoised views skip it: an actor untouched by
 * the new events is the same object, the actor list is the same array when no actor
 * changed, and the log is chunks of LOG_CHUNK rows where every full chunk stays the same
 * array for good (only the last chunk is new when rows arrive).
 */

export const LOG_CHUNK = 64;

export interface LiveFold {
  /** How many events are folded, and the first and last of them (to tell "more" from "other"). */
  count: number;
  first: StoredInspectionEvent | undefined;
  last: StoredInspectionEvent | undefined;
  actors: InspectedActor[];
  /** The log rows in chunks of LOG_CHUNK (the last one may be shorter). */
  logChunks: InspectionLogRow[][];
  /** The actors' `@xstate.actor` definition texts, by actor session id (the latest wins). */
  definitions: ReadonlyMap<string, string>;
}

export const EMPTY_FOLD: LiveFold = {
  count: 0,
  first: undefined,
  last: undefined,
  actors: [],
  logChunks: [],
  definitions: new Map(),
};

/** Does `events` start with exactly the events `fold` folded? */
function extends_(fold: LiveFold, events: readonly StoredInspectionEvent[], upto: number): boolean {
  if (fold.count === 0) return true;
  return upto >= fold.count && events[0] === fold.first && events[fold.count - 1] === fold.last;
}

/**
 * The first `upto` events (all when omitted) folded, reusing `prev` when `events` extends
 * what it folded. Pure: `prev` is never changed.
 */
export function foldOnward(
  prev: LiveFold,
  events: readonly StoredInspectionEvent[],
  upto: number = events.length,
): LiveFold {
  const end = Math.max(0, Math.min(upto, events.length));
  const base = extends_(prev, events, end) ? prev : EMPTY_FOLD;
  if (end === base.count) return base;
  const index = new Map(base.actors.map((a, i) => [a.sessionId, i]));
  let actors = base.actors;
  let actorsCopied = false;
  const touched = new Set<string>();
  const chunks = base.logChunks.slice();
  let definitions = base.definitions as Map<string, string>;
  let definitionsCopied = false;
  const actorOf = (id: string): InspectedActor => {
    if (!actorsCopied) {
      actors = actors.slice();
      actorsCopied = true;
    }
    const at = index.get(id);
    if (at === undefined) {
      const fresh: InspectedActor = {
        sessionId: id,
        parentId: null,
        name: id,
        definition: null,
        value: null,
        context: null,
        status: null,
      };
      index.set(id, actors.length);
      actors.push(fresh);
      touched.add(id);
      return fresh;
    }
    if (!touched.has(id)) {
      actors[at] = { ...actors[at]! };
      touched.add(id);
    }
    return actors[at]!;
  };
  const pushRow = (row: InspectionLogRow) => {
    const lastChunk = chunks[chunks.length - 1];
    if (!lastChunk || lastChunk.length >= LOG_CHUNK) chunks.push([row]);
    else chunks[chunks.length - 1] = [...lastChunk, row];
  };
  for (let i = base.count; i < end; i++) {
    const event = events[i]!;
    const body = event.body;
    if (body.type === '@xstate.actor' && typeof body.definition === 'string') {
      if (!definitionsCopied) {
        definitions = new Map(definitions);
        definitionsCopied = true;
      }
      definitions.set(body.sessionId, body.definition);
    }
    applyEvent(event, actorOf, pushRow);
  }
  return {
    count: end,
    first: events[0],
    last: events[end - 1],
    actors,
    logChunks: chunks,
    definitions,
  };
}
