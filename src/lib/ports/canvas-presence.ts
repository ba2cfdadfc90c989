import type { Observable } from 'rxjs';

/**
 * Presence on one machine's canvas: who is here with what selected (presence), where
 * their pointer is and what part of the diagram they are looking at (broadcasts, at most
 * 20 a second each). src/adapters/supabase/canvas-presence.ts implements it over a private
 * realtime channel; machines/open-machine/canvas-presence.machine.ts decides what to do with it.
 */

export interface Point {
  x: number;
  y: number;
}

/** What someone is looking at: the world point at the centre of their screen, and zoom. */
export interface View {
  x: number;
  y: number;
  zoom: number;
}

/**
 * Where someone is in the machine's shared simulation: the simulation shown and its replay
 * step (null: the live end). It rides on presence with the selection, so a late joiner
 * and a new follower know it at once.
 */
export interface ReplayLook {
  simulationId: string;
  position: number | null;
}

/**
 * A coding agent (`chartroom mcp`) works as the person who signed it in, so it shares their
 * user id; it shows as a peer of its own ("Ada's agent"), keyed apart from the person.
 */
export const peerKey = (userId: string, agent: boolean): string => (agent ? `${userId}/agent` : userId);

export interface CanvasPeerState {
  userId: string;
  /** This entry is the person's coding agent, not one of their tabs. */
  agent: boolean;
  /** Selected state and transition ids. */
  selection: string[];
  /** Their simulation and replay step; absent or null without a simulation open. */
  replay?: ReplayLook | null;
  /** Open tabs of this person on this machine. */
  connections: number;
  /** Others may follow their view (absent: an older client, which could always be followed). */
  followable?: boolean;
  /** They ask everyone here to follow them ("Spotlight"). */
  spotlight?: boolean;
}

/** What a person offers the room: whether they may be followed, and whether they ask to be. */
export interface PresenterOffer {
  followable: boolean;
  spotlight: boolean;
}

/** Facts from the channel, past tense. */
export type PresenceFact =
  | { type: 'presence.joined' }
  | { type: 'presence.lost'; message: string }
  | { type: 'presence.synced'; peers: CanvasPeerState[] }
  /** `at` is null when their pointer left the diagram. */
  | { type: 'cursor.moved'; userId: string; agent?: boolean; at: Point | null }
  | { type: 'view.moved'; userId: string; view: View };

export interface CanvasChannel {
  facts$: Observable<PresenceFact>;
  /** Publishes this person's selection (again after every rejoin). */
  trackSelection(selection: string[]): void;
  /** Publishes this person's simulation replay step, tracked with the selection. */
  trackReplay(replay: ReplayLook | null): void;
  /** Publishes whether this person may be followed and whether they spotlight, tracked with the selection. */
  trackOffer(offer: PresenterOffer): void;
  /** Sends the pointer position; throttled to 20 a second, the last position always sent. */
  moveCursor(at: Point | null): void;
  /** Sends the view; throttled like the cursor. */
  moveView(view: View): void;
}

export interface CanvasPresencePort {
  /** `as: 'agent'` joins as the person's coding agent rather than as one more of their tabs. */
  open(machineId: string, userId: string, as?: 'person' | 'agent'): CanvasChannel;
}
