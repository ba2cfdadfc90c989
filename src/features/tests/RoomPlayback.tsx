import type { RoomPlay } from '../../lib/ports/test-playback.ts';
import { statesAt } from '../../lib/testing/panel.ts';
import { useMembers } from '../room/room-context.ts';
import { usePlaybackSend } from './tests-selectors.ts';

/**
 * Who plays what for the room, at which step, and "Stop watching". The plays themselves
 * live in the open machine's `testPlayback` child: what this person plays goes out from
 * the open machine (the tests' selected play), what the others play comes in there.
 */
export function WatchedPlay({ play }: { play: RoomPlay }) {
  const members = useMembers();
  const send = usePlaybackSend();
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
      <button type="button" onClick={() => send({ type: 'playback.unwatch', userId: play.userId })}>
        Stop watching
      </button>
    </div>
  );
}
