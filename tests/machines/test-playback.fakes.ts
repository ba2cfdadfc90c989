import { Subject } from 'rxjs';
import { fromCallback } from 'xstate';
import type { PlaybackCommand, PlaybackInput } from '../../machines/test-playback.machine.ts';
import type { PlaybackFact, PlayShown, RoomPlay } from '../../src/lib/ports/test-playback.ts';

/**
 * A fake playback channel: the test pushes facts as the adapter would (`emit`) and reads
 * the commands the machine sent it (`commands`), and how often it was opened and closed.
 */
export function fakePlaybackChannel() {
  const facts = new Subject<PlaybackFact>();
  const commands: PlaybackCommand[] = [];
  const inputs: PlaybackInput[] = [];
  const channels = { opened: 0, closed: 0 };
  return {
    actors: {
      channel: fromCallback<PlaybackCommand, PlaybackInput>(({ input, sendBack, receive }) => {
        channels.opened += 1;
        inputs.push(input);
        const subscription = facts.subscribe((fact) => sendBack(fact));
        receive((command) => commands.push(command));
        return () => {
          channels.closed += 1;
          subscription.unsubscribe();
        };
      }),
    },
    commands,
    inputs,
    channels,
    emit: (fact: PlaybackFact) => facts.next(fact),
  };
}

export const ME = 'u-ada';
export const BOB = 'u-bob';
export const EVE = 'u-eve';
export const MACHINE = 'm-1';

export const shown = (title: string, step = 0): PlayShown => ({
  title,
  script: {
    start: ['off'],
    steps: [
      { kind: 'event', type: 'TOGGLE', payload: {}, guards: {}, expect: ['on'] },
      { kind: 'event', type: 'TOGGLE', payload: {}, guards: {}, expect: ['off'] },
    ],
  },
  step,
});

export const playOf = (userId: string, title: string, step = 0): RoomPlay => ({ userId, ...shown(title, step) });
