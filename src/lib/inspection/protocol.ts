/**
 * The inspection protocol as the stock `@statelyai/inspect` inspectors send it (one JSON
 * object per WebSocket frame): `@xstate.actor`, `@xstate.snapshot` and `@xstate.event`,
 * each with the actor's `sessionId`, usually a `rootId`, and the inspector's `_version`.
 * Shared by the `inspect` edge function (which keeps only these) and the app (which reads
 * them back), so both agree on what an event is. Pure: no I/O.
 */

export type InspectionType = '@xstate.actor' | '@xstate.snapshot' | '@xstate.event';

export interface InspectedEventObject {
  type: string;
  [key: string]: unknown;
}

interface Base {
  sessionId: string;
  rootId?: string;
  _version: string;
  createdAt?: string;
}

export interface ActorEvent extends Base {
  type: '@xstate.actor';
  name?: string;
  parentId?: string;
  /** The machine's config as JSON text (absent for non-machine actors). */
  definition?: string;
  snapshot?: Record<string, unknown>;
}

export interface SnapshotEvent extends Base {
  type: '@xstate.snapshot';
  event?: InspectedEventObject;
  snapshot: Record<string, unknown>;
}

export interface EventEvent extends Base {
  type: '@xstate.event';
  sourceId?: string;
  event: InspectedEventObject;
}

export type InspectionEvent = ActorEvent | SnapshotEvent | EventEvent;

/** Limits the function applies (and tests and the README quote). */
export const INSPECT_LIMITS = {
  /** A WebSocket frame (one event) larger than this closes the socket with FRAME_TOO_LARGE. */
  maxFrameBytes: 256 * 1024,
  /** Events in one POST. */
  maxPostEvents: 1000,
  /** One stored batch: events and (approximate) JSON bytes. */
  maxBatchEvents: 500,
  maxBatchBytes: 96 * 1024,
} as const;

/** Close codes the function uses (application range 4000-4999: WebSocket close() allows no others but 1000). */
export const INSPECT_CLOSE = {
  /** The key was revoked while the socket was open. */
  revoked: 4001,
  /** A frame over maxFrameBytes. */
  frameTooLarge: 4009,
  /** Storing failed; the client should reconnect later. */
  unavailable: 4503,
} as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 200;
const optional = (value: unknown, check: (v: unknown) => boolean) =>
  value === undefined || value === null || check(value);

/** Is this parsed JSON one of the three protocol events (anything else is counted and dropped)? */
export function isInspectionEvent(value: unknown): value is InspectionEvent {
  if (!isObject(value) || !isId(value.sessionId) || typeof value._version !== 'string') return false;
  if (!optional(value.rootId, isId)) return false;
  switch (value.type) {
    case '@xstate.actor':
      return (
        optional(value.definition, (d) => typeof d === 'string') &&
        optional(value.parentId, isId) &&
        optional(value.snapshot, isObject)
      );
    case '@xstate.snapshot':
      return isObject(value.snapshot) && optional(value.event, isObject);
    case '@xstate.event':
      return isObject(value.event) && typeof value.event.type === 'string' && optional(value.sourceId, isId);
    default:
      return false;
  }
}

/** A stored event as the database hands it out (REST rows and `events` broadcasts). */
export interface StoredInspectionEvent {
  seq: number;
  session_id: string;
  received_at: string;
  body: InspectionEvent;
}

/** The realtime events on `inspect:<project>`. */
export const INSPECT_TOPIC = (projectId: string) => `inspect:${projectId}`;
