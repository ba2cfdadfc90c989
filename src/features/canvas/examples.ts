import { canvasMachine } from '../../../machines/open-machine/canvas.machine.ts';
import { connectionMachine } from '../../../machines/account/connection.machine.ts';
import { documentMachine } from '../../../machines/open-machine/document.machine.ts';
import { invitesMachine } from '../../../machines/room/invites.machine.ts';
import { layoutMachine } from '../../../machines/open-machine/layout.machine.ts';
import { projectsMachine } from '../../../machines/account/projects.machine.ts';
import { roomMachine } from '../../../machines/room/room.machine.ts';
import { sessionMachine } from '../../../machines/account/session.machine.ts';
import { fromMachine, type MachineLike } from '../../lib/model/from-machine.ts';
import { importXState } from '../../lib/model/import.ts';
import type { IdGen, MachineDefinition } from '../../lib/model/types.ts';
import type { ExampleName } from './example-names.ts';

/** Chartroom's own statecharts (machines/), offered as examples to start from. */
const MACHINES: Record<ExampleName, MachineLike> = {
  session: sessionMachine,
  connection: connectionMachine,
  room: roomMachine,
  document: documentMachine,
  projects: projectsMachine,
  invites: invitesMachine,
  canvas: canvasMachine,
  layout: layoutMachine,
};

export { EXAMPLE_NAMES } from './example-names.ts';

/**
 * An example as a fresh definition: new ids each time, so it can be loaded twice; the
 * seed's demo project passes deterministic `ids` so the generated SQL is stable.
 */
export function loadExample(name: string, ids?: IdGen): MachineDefinition | null {
  const machine = (MACHINES as Record<string, MachineLike | undefined>)[name];
  if (!machine) return null;
  return importXState(fromMachine(machine), ids ? { name, ids } : { name });
}
