import type { SupabaseClient } from '@supabase/supabase-js';
import { defer, EMPTY, finalize, map, merge, mergeMap, of, Subject, tap, type Observable } from 'rxjs';
import type {
  CanvasChannel,
  CanvasPeerState,
  CanvasPresencePort,
  Point,
  PresenceFact,
  ReplayLook,
  View,
} from '../../lib/ports/canvas-presence.ts';
import { latestAtMost } from '../../lib/throttle.ts';
import type { Database } from './database.types.ts';
import type { Peer } from '../../lib/ports/realtime.ts';
import { openChannel, type ChannelFact } from './realtime.ts';

/**
 * A machine's canvas presence over a private channel `canvas:<machine id>` (RLS on
 * realtime.messages admits the project's members, see the canvas_presence migration).
 * Selections and replay steps ride on presence; cursors and views are broadcasts, throttled here to 20 a
 * second each. Payloads from peers are checked before they become facts: the channel is
 * shared with other people's browsers.
 */

type Client = SupabaseClient<Database>;

/** Sends per second for each of cursor and view. */
export const CANVAS_SEND_RATE = 20;

interface SelectionMeta {
  userId: string;
  selection: string[];
  replay: ReplayLook | null;
  /** Set by `chartroom mcp`: this connection is the person's coding agent. */
  agent?: boolean;
  /** False: this person does not let others follow them. */
  followable?: boolean;
  /** This person asks everyone to follow them. */
  spotlight?: boolean;
}

type Broadcast = Record<string, unknown>;

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const MAX_SELECTION = 500;

function selectionOf(meta: Partial<SelectionMeta>): string[] {
  return Array.isArray(meta.selection)
    ? meta.selection.filter((id): id is string => typeof id === 'string').slice(0, MAX_SELECTION)
    : [];
}

const MAX_ID = 100;

/** A peer's replay step as they tracked it, or null if it is not one we understand. */
export function replayOf(meta: Partial<Record<keyof SelectionMeta, unknown>>): ReplayLook | null {
  const replay = meta.replay;
  if (typeof replay !== 'object' || replay === null) return null;
  const { simulationId, position } = replay as Record<string, unknown>;
  if (typeof simulationId !== 'string' || simulationId === '' || simulationId.length > MAX_ID) return null;
  if (position !== null && !(Number.isSafeInteger(position) && (position as number) >= 0)) return null;
  return { simulationId, position: position as number | null };
}

/** A broadcast from a peer as a fact, or nothing if it is not one we understand. */
export function broadcastFact(event: string, payload: Broadcast): PresenceFact | null {
  const { userId } = payload;
  if (typeof userId !== 'string' || userId === '') return null;
  if (event === 'cursor') {
    const agent = payload.agent === true ? { agent: true } : {};
    if (payload.x === null) return { type: 'cursor.moved', userId, ...agent, at: null };
    return finite(payload.x) && finite(payload.y)
      ? { type: 'cursor.moved', userId, ...agent, at: { x: payload.x, y: payload.y } }
      : null;
  }
  if (event === 'view') {
    const { x, y, zoom } = payload;
    return finite(x) && finite(y) && finite(zoom) && zoom > 0
      ? { type: 'view.moved', userId, view: { x, y, zoom } }
      : null;
  }
  return null;
}

/**
 * One person's presence as peers: their tabs folded into one (the newest meta speaks for
 * them), and their coding agent, if it is here, as a peer of its own, so the agent's
 * selection never stands in for the person's.
 */
function peerStates(peer: Peer<SelectionMeta>): CanvasPeerState[] {
  const userId = typeof peer.meta.userId === 'string' ? peer.meta.userId : peer.key;
  const metas = peer.metas.length > 0 ? peer.metas : [peer.meta];
  const out: CanvasPeerState[] = [];
  for (const agent of [false, true]) {
    const mine = metas.filter((meta) => (meta.agent === true) === agent);
    const newest = mine[mine.length - 1];
    if (newest)
      out.push({
        userId,
        agent,
        selection: selectionOf(newest),
        replay: agent ? null : replayOf(newest),
        connections: mine.length,
        followable: newest.followable !== false,
        spotlight: newest.spotlight === true,
      });
  }
  return out;
}

function toFact(fact: ChannelFact<never, Broadcast, SelectionMeta>): PresenceFact | null {
  switch (fact.type) {
    case 'status':
      return fact.status === 'subscribed'
        ? { type: 'presence.joined' }
        : { type: 'presence.lost', message: fact.message ?? 'The live connection closed' };
    case 'presence':
      return { type: 'presence.synced', peers: fact.peers.flatMap(peerStates) };
    case 'broadcast':
      return broadcastFact(fact.event, fact.payload);
    case 'change':
      return null;
  }
}

export function createCanvasPresenceAdapter(client: Client): CanvasPresencePort {
  return {
    open(machineId: string, userId: string, as: 'person' | 'agent' = 'person'): CanvasChannel {
      const agent = as === 'agent';
      const channel = openChannel<never, Broadcast, SelectionMeta>(client, {
        topic: `canvas:${machineId}`,
        private: true,
        broadcast: ['cursor', 'view'],
        presenceKey: userId,
      });
      // Presence holds one meta per person: each track sends the latest of both.
      const meta: SelectionMeta = { userId, selection: [], replay: null, ...(agent ? { agent } : {}) };
      const cursor$ = new Subject<Point | null>();
      const view$ = new Subject<View>();
      // The senders live as long as someone listens to the channel.
      const facts$: Observable<PresenceFact> = defer(() => {
        const sending = merge(
          cursor$.pipe(
            latestAtMost<Point | null>(CANVAS_SEND_RATE),
            tap((at) =>
              channel.send('cursor', {
                userId,
                ...(agent ? { agent } : {}),
                ...(at ? { x: at.x, y: at.y } : { x: null }),
              }),
            ),
          ),
          view$.pipe(
            latestAtMost<View>(CANVAS_SEND_RATE),
            tap((view) => channel.send('view', { userId, ...view })),
          ),
        ).subscribe();
        return channel.facts$.pipe(
          map(toFact),
          mergeMap((fact) => (fact ? of(fact) : EMPTY)),
          finalize(() => sending.unsubscribe()),
        );
      });
      return {
        facts$,
        trackSelection: (selection) => {
          meta.selection = selection;
          channel.track({ ...meta });
        },
        trackReplay: (replay) => {
          meta.replay = replay;
          channel.track({ ...meta });
        },
        trackOffer: (offer) => {
          meta.followable = offer.followable;
          meta.spotlight = offer.spotlight;
          channel.track({ ...meta });
        },
        moveCursor: (at) => cursor$.next(at),
        moveView: (view) => view$.next(view),
      };
    },
  };
}
