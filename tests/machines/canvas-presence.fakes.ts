import type { PresenceCommand, PresenceInput } from '../../machines/open-machine/canvas-presence.machine.ts';
import type { CanvasPeerState, PresenceFact } from '../../src/lib/ports/canvas-presence.ts';
import { fakeChannel } from './channel.fakes.ts';

export { BOB, EVE, MACHINE, ME } from './channel.fakes.ts';

/** A fake canvas channel (see fakeChannel), plus the selections the machine sent on it. */
export function fakeCanvasChannel() {
  const channel = fakeChannel<PresenceFact, PresenceCommand, PresenceInput>();
  return {
    ...channel,
    /** The selections sent so far, oldest first. */
    selectionsSent: () => channel.commands.flatMap((c) => (c.type === 'send.selection' ? [c.selection] : [])),
  };
}

export const peer = (userId: string, selection: string[] = [], connections = 1, agent = false): CanvasPeerState => ({
  userId,
  agent,
  selection,
  connections,
});
