import type { View } from '../../src/lib/ports/canvas-presence.ts';
import type { PresenceContext } from './canvas-presence.machine.ts';
import type { CanvasContext } from './canvas.setup.ts';

/**
 * Follow mode over the viewport: what the open machine routes between its canvas and
 * presence children. What this person looks at (the world point at the centre of their
 * stage, and zoom) goes out on presence; a follower's canvas shows the view of the person
 * followed. Both need the stage's size, which the canvas holds (`canvas.paneSized`).
 */

/** The views the open machine last passed on: its own look to presence, the followed one's to the canvas. */
export interface ViewRoute {
  look: View | null;
  followed: View | null;
}

export const NO_VIEW_ROUTE: ViewRoute = { look: null, followed: null };

export const sameView = (a: View | null, b: View | null): boolean =>
  a === b || (a !== null && b !== null && a.x === b.x && a.y === b.y && a.zoom === b.zoom);

/** What this person looks at, once the stage is measured (null before). */
export function canvasLook(context: Pick<CanvasContext, 'viewport' | 'stage'>): View | null {
  const { viewport, stage } = context;
  if (!stage) return null;
  return {
    x: (stage.width / 2 - viewport.x) / viewport.zoom,
    y: (stage.height / 2 - viewport.y) / viewport.zoom,
    zoom: viewport.zoom,
  };
}

/** The view of the person followed, or null when following no one (or they have shown none). */
export function followedView(context: Pick<PresenceContext, 'following' | 'peers'>): View | null {
  const { following, peers } = context;
  if (!following || !Object.hasOwn(peers, following)) return null;
  return peers[following]?.view ?? null;
}
