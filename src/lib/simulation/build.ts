import { createMachine, fromCallback, type AnyActorLogic, type AnyStateMachine } from 'xstate';
import { exportXState } from '../model/export.ts';
import type { MachineDefinition } from '../model/types.ts';
import type { ActionCall, GuardValues } from './types.ts';

/**
 * The most microsteps one event may take. A chart whose eventless transitions (or onDone)
 * form a cycle would otherwise loop for ever in XState (its default is no limit) and hang
 * the tab; past this the actor stops with XState's "Infinite loop detected" error.
 */
export const MAX_MICROSTEPS = 5000;

/** A named delay has no value in a definition (it is code); the simulation uses this. */
export const NAMED_DELAY_MS = 1000;

/** Every name a definition refers to: guards, actions, actor sources and named delays. */
export interface DefinitionNames {
  guards: string[];
  actions: string[];
  actors: string[];
  delays: string[];
}

export function definitionNames(def: MachineDefinition): DefinitionNames {
  const guards = new Set<string>();
  const actions = new Set<string>();
  const actors = new Set<string>();
  const delays = new Set<string>();
  for (const s of Object.values(def.states)) {
    for (const a of [...s.entry, ...s.exit]) actions.add(a.type);
    for (const inv of s.invoke) actors.add(inv.src);
  }
  for (const t of Object.values(def.transitions)) {
    if (t.guard) guards.add(t.guard.type);
    for (const a of t.actions) actions.add(a.type);
    if (typeof t.event === 'object' && 'after' in t.event && typeof t.event.after === 'string')
      delays.add(t.event.after);
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return { guards: sorted(guards), actions: sorted(actions), actors: sorted(actors), delays: sorted(delays) };
}

/** Where a running simulation reads guard switches and records actions. */
export interface SimHooks {
  guards: GuardValues;
  actions: ActionCall[];
}

/**
 * An own-property record: `{}` would find `constructor` or `toString` on its prototype
 * when XState looks a name up, and `obj[name] = v` would treat `__proto__` specially.
 */
function ownRecord<T>(names: string[], make: (name: string) => T): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const name of names) Object.defineProperty(out, name, { value: make(name), enumerable: true });
  return out;
}

/** An invoked actor that does nothing until someone sends its done or error event. */
const inertActor: AnyActorLogic = fromCallback(() => undefined);

/**
 * A real XState v5 machine for a stored definition, without running any of its code: a
 * definition is data written by other people, and its guards, actions, actor sources
 * and delays are only names. Every name gets an implementation of ours: a guard answers
 * the switch recorded for the current step (`hooks.guards`), an action appends itself
 * to `hooks.actions`, an actor source is an inert actor, a named delay is
 * NAMED_DELAY_MS. Context is the definition's JSON (or the one the simulation started
 * with), never evaluated. XState itself never evaluates strings.
 */
export function buildSimMachine(def: MachineDefinition, context: unknown, hooks: SimHooks): AnyStateMachine {
  return buildWithSlot(def, context, { hooks });
}

/** Where a shared machine's implementations find the hooks of the simulator running it now. */
export interface HookSlot {
  hooks: SimHooks;
}

type Built = { machine: AnyStateMachine; slot: HookSlot };
const shared = new WeakMap<MachineDefinition, Map<string, Built>>();

/**
 * The machine for (definition, context), built once and shared by every simulator of it
 * (building is most of what starting a simulator costs, and a memoised replay starts
 * several). Its implementations read `slot.hooks`: a simulator points the slot at its
 * own hooks before each thing it asks its actor, all of it synchronous.
 */
export function sharedSimMachine(
  def: MachineDefinition,
  context: unknown,
): { machine: AnyStateMachine; slot: HookSlot } {
  let byContext = shared.get(def);
  if (!byContext) {
    byContext = new Map<string, Built>();
    shared.set(def, byContext);
  }
  const key = JSON.stringify(context ?? {});
  let built = byContext.get(key);
  if (!built) {
    const slot: HookSlot = { hooks: { guards: {}, actions: [] } };
    built = { machine: buildWithSlot(def, context, slot), slot };
    byContext.set(key, built);
  }
  return built;
}

function buildWithSlot(def: MachineDefinition, context: unknown, slot: HookSlot): AnyStateMachine {
  const config: Record<string, unknown> = exportXState(def);
  config.context = context ?? {};
  config.options = { maxIterations: MAX_MICROSTEPS };
  const names = definitionNames(def);
  const guards = ownRecord(names.guards, (name) => () => slot.hooks.guards[name] === true);
  const actions = ownRecord(names.actions, (name) => (_args: unknown, params: unknown) => {
    slot.hooks.actions.push(
      params === undefined ? { type: name } : { type: name, params: params as ActionCall['params'] },
    );
  });
  const actors = ownRecord(names.actors, () => inertActor);
  const delays = ownRecord(names.delays, () => NAMED_DELAY_MS);
  // The implementations are ours and typed loosely on purpose: the machine's names come
  // from data, so no static type can list them. Given to createMachine rather than
  // `.provide()`, which would build the whole machine a second time.
  return createMachine(config, { guards, actions, actors, delays });
}
