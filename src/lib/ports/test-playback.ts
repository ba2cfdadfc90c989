import type { Observable } from 'rxjs';
import type { TestScript } from '../testing/types.ts';

/**
 * Playing a test path for the room: whoever plays a generated path or a saved test on
 * their diagram tells everyone on the machine what they play and at which step, and
 * everyone's diagram shows it with who plays it. Nothing is stored: the facts are
 * broadcasts on a private channel per machine, and a player's presence there ends their
 * play for everyone when they leave (src/adapters/supabase/test-playback.ts);
 * machines/open-machine/test-playback.machine.ts decides what to show.
 */

/** What one person plays: a name for it, the script, and the step shown (0 = the start). */
export interface RoomPlay {
  userId: string;
  title: string;
  script: TestScript;
  step: number;
}

/** What this person plays, or null when they stop. */
export type PlayShown = Omit<RoomPlay, 'userId'>;

/** Facts from the channel, past tense. */
export type PlaybackFact =
  | { type: 'playback.joined' }
  | { type: 'playback.lost'; message: string }
  | { type: 'playback.played'; play: RoomPlay }
  | { type: 'playback.stopped'; userId: string }
  /** A player's last connection to the channel went (tab closed, connection lost): their play ends. */
  | { type: 'playback.left'; userId: string }
  /** Someone arrived and asks what is playing; a player answers with what it plays. */
  | { type: 'playback.asked'; userId: string };

export interface PlaybackChannel {
  facts$: Observable<PlaybackFact>;
  /** Tells the room what this person plays now (null: they stopped). */
  show(play: PlayShown | null): void;
  /** Asks the room what is playing (after joining). */
  ask(): void;
}

export interface TestPlaybackPort {
  open(machineId: string, userId: string): PlaybackChannel;
}

/** The longest script played for the room (a longer one plays only for its player). */
export const MAX_PLAYED_STEPS = 500;
