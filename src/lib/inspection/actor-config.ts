import type { StoredInspectionEvent } from './protocol.ts';

/** The text of the machine config an actor's latest `@xstate.actor` event carried, as the events stand. */
export function definitionTextOf(events: readonly StoredInspectionEvent[], actorId: string | null): string | null {
  if (!actorId) return null;
  for (let i = events.length - 1; i >= 0; i--) {
    const body = events[i]!.body;
    if (body.type === '@xstate.actor' && body.sessionId === actorId && typeof body.definition === 'string')
      return body.definition;
  }
  return null;
}

/** A definition's text parsed, or null when it is not JSON. */
export function parseDefinitionText(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The machine config an actor's `@xstate.actor` event carried, as the events stand. */
export function definitionOf(
  events: readonly StoredInspectionEvent[],
  actorId: string | null,
): Record<string, unknown> | null {
  return parseDefinitionText(definitionTextOf(events, actorId));
}
