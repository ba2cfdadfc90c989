import type { MachineDefinition } from '../model/types.ts';
import { isSendableType, type Simulator } from './simulator.ts';
import type { GuardValues } from './types.ts';

/** The named events of a definition, in a stable order; wildcards are not buttons. */
export function eventTypesOf(def: MachineDefinition): string[] {
  const types = new Set<string>();
  for (const t of Object.values(def.transitions)) {
    if (typeof t.event === 'string' && !t.event.includes('*') && isSendableType(t.event)) types.add(t.event);
  }
  return [...types].sort();
}

export interface EventOption {
  type: string;
  enabled: boolean;
}

/**
 * Every event the panel offers at the simulator's position: the machine's named events
 * and, for each invoked actor alive now, its `xstate.done.actor.<id>` and
 * `xstate.error.actor.<id>`, each marked enabled when sending it now would do something
 * with the given guard switches.
 */
export function eventOptions(sim: Simulator, guards: GuardValues): EventOption[] {
  const types = eventTypesOf(sim.setup.definition);
  for (const id of sim.view().children) types.push(`xstate.done.actor.${id}`, `xstate.error.actor.${id}`);
  return types.map((type) => ({ type, enabled: sim.canSend(type, guards) }));
}
