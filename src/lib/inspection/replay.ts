import type { StoredInspectionEvent } from './protocol.ts';

/**
 * A session's stored events folded into what the page shows at one position: the actors
 * (a tree by parentId), each with its machine definition (from `@xstate.actor`), state
 * value and context (from its latest snapshot), and the event log. Pure, so replaying
 * and scrubbing is folding a prefix of the same list.
 */

export interface InspectedActor {
  sessionId: string;
  parentId: string | null;
  name: string;
  /** The machine config the inspector sent (parsed JSON), or null for non-machine actors. */
  definition: Record<string, unknown> | null;
  value: unknown;
  context: unknown;
  status: string | null;
}

export interface InspectionLogRow {
  seq: number;
  type: string;
  /** The sending actor's session id, when the event came from one. */
  sourceId: string | null;
  targetId: string;
  /** The event object, as data. */
  payload: unknown;
}

export interface InspectionView {
  actors: InspectedActor[];
  log: InspectionLogRow[];
}

function parseDefinition(text: string | undefined): Record<string, unknown> | null {
  if (typeof text !== 'string') return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function snapshotParts(snapshot: Record<string, unknown> | undefined) {
  return {
    value: snapshot?.value ?? null,
    context: snapshot?.context ?? null,
    status: typeof snapshot?.status === 'string' ? snapshot.status : null,
  };
}

/**
 * Applies one stored event: `actorOf` hands out the (mutable) actor to change, `pushRow`
 * takes a log row. Shared by the whole fold below and the live fold (live-fold.ts).
 */
export function applyEvent(
  { seq, body: event }: StoredInspectionEvent,
  actorOf: (id: string) => InspectedActor,
  pushRow: (row: InspectionLogRow) => void,
): void {
  if (event.type === '@xstate.actor') {
    const actor = actorOf(event.sessionId);
    actor.parentId = event.parentId ?? null;
    actor.name = event.name ?? event.sessionId;
    actor.definition = parseDefinition(event.definition);
    if (event.snapshot) Object.assign(actor, snapshotParts(event.snapshot));
  } else if (event.type === '@xstate.snapshot') {
    Object.assign(actorOf(event.sessionId), snapshotParts(event.snapshot));
  } else {
    pushRow({
      seq,
      type: event.event.type,
      sourceId: event.sourceId ?? null,
      targetId: event.sessionId,
      payload: event.event,
    });
  }
}

/** Folds the first `upto` events (all when omitted). */
export function foldEvents(events: readonly StoredInspectionEvent[], upto = events.length): InspectionView {
  const actors = new Map<string, InspectedActor>();
  const log: InspectionLogRow[] = [];
  const actorOf = (id: string): InspectedActor => {
    let actor = actors.get(id);
    if (!actor) {
      actor = { sessionId: id, parentId: null, name: id, definition: null, value: null, context: null, status: null };
      actors.set(id, actor);
    }
    return actor;
  };
  const pushRow = (row: InspectionLogRow) => log.push(row);
  for (let i = 0; i < Math.min(upto, events.length); i++) applyEvent(events[i]!, actorOf, pushRow);
  return { actors: [...actors.values()], log };
}

/** The actors in tree order (each parent before its children), with their depth. */
export function actorTree(actors: readonly InspectedActor[]): { actor: InspectedActor; depth: number }[] {
  const ids = new Set(actors.map((a) => a.sessionId));
  const children = new Map<string | null, InspectedActor[]>();
  for (const actor of actors) {
    const parent = actor.parentId && ids.has(actor.parentId) ? actor.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), actor]);
  }
  const out: { actor: InspectedActor; depth: number }[] = [];
  const walk = (parent: string | null, depth: number, seen: Set<string>) => {
    for (const actor of children.get(parent) ?? []) {
      if (seen.has(actor.sessionId)) continue;
      seen.add(actor.sessionId);
      out.push({ actor, depth });
      walk(actor.sessionId, depth + 1, seen);
    }
  };
  walk(null, 0, new Set());
  return out;
}
