import { importXState } from './import.ts';
import type { MachineDefinition } from './types.ts';

/** A new machine as people expect to start one: a root with a single initial state. */
export function emptyMachine(name: string): MachineDefinition {
  const id =
    name
      .trim()
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'machine';
  return importXState({ id, initial: 'idle', states: { idle: {} } }, { name });
}
