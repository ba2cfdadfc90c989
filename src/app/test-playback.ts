import { fromCallback } from 'xstate';
import {
  testPlaybackMachine,
  type PlaybackCommand,
  type PlaybackInput,
} from '../../machines/open-machine/test-playback.machine.ts';
import type { PlaybackFact, TestPlaybackPort } from '../lib/ports/test-playback.ts';

/** The test playback machine over the playback port: facts in, what this person plays out. */
export function testPlaybackLogic(port: TestPlaybackPort) {
  return testPlaybackMachine.provide({
    actors: {
      channel: fromCallback<PlaybackCommand, PlaybackInput>(({ input, sendBack, receive }) => {
        const channel = port.open(input.machineId, input.userId);
        const subscription = channel.facts$.subscribe({
          next: (fact: PlaybackFact) => sendBack(fact),
          error: (error: unknown) =>
            sendBack({
              type: 'playback.lost',
              message: error instanceof Error ? error.message : 'The live connection failed',
            }),
        });
        receive((command) => {
          if (command.type === 'send.ask') channel.ask();
          else channel.show(command.play);
        });
        return () => subscription.unsubscribe();
      }),
    },
  });
}
export type TestPlaybackLogic = ReturnType<typeof testPlaybackLogic>;
