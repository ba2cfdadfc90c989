import { Subject } from 'rxjs';
import { fromCallback, type EventObject } from 'xstate';

/**
 * A fake realtime channel for a machine's `channel` actor: the test pushes facts as the
 * adapter would (`emit`) and reads the commands the machine sent it (`commands`), the
 * inputs it was opened with (`inputs`), and how often it was opened and torn down.
 */
export function fakeChannel<Fact extends EventObject, Command extends EventObject, Input>() {
  const facts = new Subject<Fact>();
  const commands: Command[] = [];
  const inputs: Input[] = [];
  const channels = { opened: 0, closed: 0 };
  return {
    actors: {
      channel: fromCallback<Command, Input>(({ input, sendBack, receive }) => {
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
    emit: (fact: Fact) => facts.next(fact),
  };
}

/** The people and the machine the channel fakes' tests speak of. */
export const ME = 'u-ada';
export const BOB = 'u-bob';
export const EVE = 'u-eve';
export const MACHINE = 'm-1';
