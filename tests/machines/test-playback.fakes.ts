import type { PlaybackCommand, PlaybackInput } from '../../machines/open-machine/test-playback.machine.ts';
import type { PlaybackFact, PlayShown, RoomPlay } from '../../src/lib/ports/test-playback.ts';
import { fakeChannel } from './channel.fakes.ts';

export { BOB, EVE, MACHINE, ME } from './channel.fakes.ts';

/** A fake playback channel (see fakeChannel). */
export const fakePlaybackChannel = () => fakeChannel<PlaybackFact, PlaybackCommand, PlaybackInput>();

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
