import { useActorRef } from '@xstate/react';
import { useEffect, type ReactNode } from 'react';
import type { ActorRefFrom } from 'xstate';
import { watchedPlay, type testPlaybackMachine } from '../../../machines/test-playback.machine.ts';
import type { PlayShown, RoomPlay } from '../../lib/ports/test-playback.ts';
import { MAX_PLAYED_STEPS } from '../../lib/ports/test-playback.ts';
import type { TestScript } from '../../lib/testing/types.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { useMembers } from '../room/room-context.ts';
import { useCurrentUser } from '../session/session-context.ts';
import { useTestPlaybackLogic } from './tests-context.ts';

export type PlaybackRef = ActorRefFrom<typeof testPlaybackMachine>;

/**
 * The room's side of playing a path: this person's playback actor for the machine
 * (none without a provider or a signed-in user: then plays stay on this page), handed to
 * `children`.
 */
export function WithPlayback(props: { machineId: string; children: (ref: PlaybackRef | undefined) => ReactNode }) {
  const logic = useTestPlaybackLogic();
  const user = useCurrentUser();
  if (!logic || !user) return <>{props.children(undefined)}</>;
  return <Playing key={user.id} logic={logic} userId={user.id} {...props} />;
}

function Playing(props: {
  logic: typeof testPlaybackMachine;
  machineId: string;
  userId: string;
  children: (ref: PlaybackRef | undefined) => ReactNode;
}) {
  const ref = useActorRef(props.logic, { input: { machineId: props.machineId, userId: props.userId } });
  return <>{props.children(ref)}</>;
}

/** The states a script shows at a step: the start at 0, else the expectation after the step. */
export const statesAt = (script: TestScript, step: number): string[] =>
  step === 0 ? script.start : (script.steps[step - 1]?.expect ?? []);

/**
 * Tells the room what this person plays (a path or test selected in the panel, at the
 * step shown), and that they stopped or left. A script too long to broadcast plays only
 * here. A tab closed outright says nothing: the others see its last play until the
 * player's channel is gone from their view (a reload or a rejoin forgets it).
 */
export function useShareLocalPlay(ref: PlaybackRef | undefined, play: PlayShown | null): void {
  const shown = play && play.script.steps.length <= MAX_PLAYED_STEPS ? play : null;
  useEffect(() => {
    ref?.send({ type: 'playback.show', play: shown });
  }, [ref, shown]);
  // Leaving the machine (the panel unmounts before the actor stops) tells the room too.
  useEffect(() => () => ref?.send({ type: 'playback.show', play: null }), [ref]);
}

/** The play someone else is playing for the room that this person watches, or null. */
export function useWatchedPlay(ref: PlaybackRef | undefined): RoomPlay | null {
  return useChildSelector(ref, (s) => watchedPlay(s.context), null);
}

/** Who plays what for the room, at which step, and "Stop watching". */
export function WatchedPlay({ playback, play }: { playback: PlaybackRef | undefined; play: RoomPlay }) {
  const members = useMembers();
  const player = members.find((m) => m.userId === play.userId);
  const states = statesAt(play.script, play.step);
  return (
    <div className="tests-room-play" role="group" aria-label="Played for the room" data-player={play.userId}>
      <span className="tests-room-player" style={player ? { color: player.color } : undefined}>
        {player?.name ?? 'Someone'} is playing
      </span>{' '}
      <span className="tests-words">{play.title}</span>{' '}
      <span role="status">
        Step {play.step} of {play.script.steps.length}: {states.join(', ') || '—'}
      </span>
      <button type="button" onClick={() => playback?.send({ type: 'playback.unwatch', userId: play.userId })}>
        Stop watching
      </button>
    </div>
  );
}
