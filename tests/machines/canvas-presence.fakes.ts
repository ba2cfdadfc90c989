import { Subject } from 'rxjs';
import { fromCallback } from 'xstate';
import type { PresenceCommand, PresenceInput } from '../../machines/canvas-presence.machine.ts';
import type { CanvasPeerState, PresenceFact } from '../../src/lib/ports/canvas-presence.ts';

/**
 * A fake canvas channel: the test pushes facts as the adapter would (`emit`) and reads the
 * commands the machine sent it (`commands`), plus how often it was opened and torn down.
 */
export function fakeCanvasChannel() {
  const facts = new Subject<PresenceFact>();
  const commands: PresenceCommand[] = [];
  const inputs: PresenceInput[] = [];
  const channels = { opened: 0, closed: 0 };
  return {
    actors: {
      channel: fromCallback<PresenceCommand, PresenceInput>(({ input, sendBack, receive }) => {
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
    emit: (fact: PresenceFact) => facts.next(fact),
    /** The selections sent so far, oldest first. */
    selectionsSent: () => commands.flatMap((c) => (c.type === 'send.selection' ? [c.selection] : [])),
  };
}

export const ME = 'u-ada';
export const BOB = 'u-bob';
export const EVE = 'u-eve';
export const MACHINE = 'm-1';

export const peer = (userId: string, selection: string[] = [], connections = 1): CanvasPeerState => ({
  userId,
  selection,
  connections,
});
