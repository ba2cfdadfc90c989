import type { ReplayLook } from '../../src/lib/ports/canvas-presence.ts';
import type { PresenceContext } from './canvas-presence.machine.ts';
import type { SimulationContext } from './simulation.machine.ts';

/**
 * Follow mode over the simulation: what the open machine routes between its
 * presence and simulation children. Each person's replay step rides on presence; a
 * follower's simulation shows the step of the person followed.
 */

/** The steps the open machine last passed on: its own to presence, the followed one's to the simulation. */
export interface ReplayRoute {
  shared: ReplayLook | null;
  followed: ReplayLook | null;
}

export const NO_ROUTE: ReplayRoute = { shared: null, followed: null };

export const sameLook = (a: ReplayLook | null, b: ReplayLook | null): boolean =>
  a === b || (a !== null && b !== null && a.simulationId === b.simulationId && a.position === b.position);

/** This person's simulation and replay step, as presence carries it (null: no simulation open). */
export const replayLook = (context: Pick<SimulationContext, 'simulation' | 'position'>): ReplayLook | null =>
  context.simulation ? { simulationId: context.simulation.id, position: context.position } : null;

/** The replay step of the person followed, or null when following no one (or they have none). */
export function followedReplay(context: Pick<PresenceContext, 'following' | 'peers'>): ReplayLook | null {
  const { following, peers } = context;
  if (!following || !Object.hasOwn(peers, following)) return null;
  return peers[following]?.replay ?? null;
}
