import { importXState } from '../model/import.ts';
import type { MachineDefinition } from '../model/types.ts';

/**
 * An inspected machine's config (what `@xstate.actor` carried: the app's config as JSON,
 * implementations stringified or dropped by the inspector) made into the project's model.
 * Only what the JSON can honestly say survives: states, their kinds and initial states,
 * transitions by event with their targets, and named guards and actions (a function the
 * inspector could not send has no name and is left out). Pure.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const STATE_TYPES = new Set(['atomic', 'compound', 'parallel', 'final', 'history']);

function named(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '' && !value.startsWith('xstate.')) return value;
  if (isObj(value) && typeof value.type === 'string' && !value.type.startsWith('xstate.')) return value.type;
  return undefined;
}

function namedList(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map(named).filter((n): n is string => n !== undefined);
}

function transition(value: unknown): Obj | null {
  if (typeof value === 'string') return { target: value };
  if (!isObj(value)) return null;
  const out: Obj = {};
  const targets = (Array.isArray(value.target) ? value.target : [value.target]).filter(
    (t): t is string => typeof t === 'string',
  );
  if (targets.length === 1) out.target = targets[0];
  else if (targets.length > 1) out.target = targets;
  const guard = named(value.guard);
  if (guard) out.guard = guard;
  const actions = namedList(value.actions);
  if (actions.length > 0) out.actions = actions;
  return out;
}

function transitions(value: unknown): Obj[] {
  return (Array.isArray(value) ? value : [value]).map(transition).filter((t): t is Obj => t !== null);
}

function stateConfig(value: unknown): Obj {
  if (!isObj(value)) return {};
  const out: Obj = {};
  if (typeof value.type === 'string' && STATE_TYPES.has(value.type)) out.type = value.type;
  if (typeof value.initial === 'string') out.initial = value.initial;
  if (isObj(value.on)) {
    const on: Obj = {};
    for (const [event, t] of Object.entries(value.on)) on[event] = transitions(t);
    out.on = on;
  }
  if (value.always !== undefined) out.always = transitions(value.always);
  for (const key of ['entry', 'exit'] as const) {
    const actions = namedList(value[key]);
    if (actions.length > 0) out[key] = actions;
  }
  if (isObj(value.states)) {
    const states: Obj = {};
    for (const [key, child] of Object.entries(value.states)) states[key] = stateConfig(child);
    out.states = states;
  }
  return out;
}

/** The config's skeleton, as a plain XState JSON config. */
export function inspectedConfig(config: Obj): Obj {
  return { id: typeof config.id === 'string' ? config.id : 'inspected', ...stateConfig(config) };
}

/** The inspected config as the project's model; throws ImportError when it cannot be represented. */
export function inspectedDefinition(config: Obj, name?: string): MachineDefinition {
  return importXState(inspectedConfig(config), name ? { name } : {});
}
