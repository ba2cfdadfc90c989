import type { Observable } from 'rxjs';

/**
 * Follow mode on the inspection page: a member presents what they look at (the
 * session, the actor and the replay position), and members who follow them see the same,
 * live. Nothing is stored: broadcasts on the private channel `inspect-follow:<project>`
 * (src/adapters/supabase/inspection-follow.ts); machines/inspection/inspection-follow.machine.ts
 * decides what to show.
 */

/** What one person looks at on the inspection page. */
export interface InspectionLook {
  sessionId: string | null;
  actorId: string | null;
  /** How many of the session's events are shown; null: all of them, following live. */
  position: number | null;
}

/** A member presenting, with what they look at now. */
export interface Presenter {
  userId: string;
  look: InspectionLook;
}

/** Facts from the channel, past tense. */
export type FollowFact =
  | { type: 'follow.joined' }
  | { type: 'follow.lost'; message: string }
  | { type: 'follow.presented'; presenter: Presenter }
  | { type: 'follow.stopped'; userId: string }
  /** Someone arrived and asks who presents; presenters answer with their look. */
  | { type: 'follow.asked'; userId: string };

export interface FollowChannel {
  facts$: Observable<FollowFact>;
  /** Tells the room what this person presents now (null: they stopped presenting). */
  present(look: InspectionLook | null): void;
  /** Asks the room who presents (after joining). */
  ask(): void;
  close(): void;
}

export interface InspectionFollowPort {
  open(projectId: string, userId: string): FollowChannel;
}
