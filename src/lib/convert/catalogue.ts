import type { ActionRef, GuardRef, Json, MachineDefinition } from '../model/types.ts';

/**
 * What an implementation must provide for a chart: the names of its actions, guards,
 * actors (invoke `src`) and named delays, each sorted. Higher-order guards (`and`, `or`,
 * `not` with `params.guards`) are not names to implement; their operands are.
 */
export interface Catalogue {
  actions: string[];
  guards: string[];
  actors: string[];
  delays: string[];
}

export const HIGHER_ORDER_GUARDS = new Set(['and', 'or', 'not']);

/** The operands of a higher-order guard (`{ type: 'and', params: { guards: [...] } }`), else null. */
export function guardOperands(guard: GuardRef): GuardRef[] | null {
  if (!HIGHER_ORDER_GUARDS.has(guard.type)) return null;
  const params = guard.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return null;
  const list = params.guards;
  if (!Array.isArray(list)) return null;
  const out: GuardRef[] = [];
  for (const g of list) {
    const ref = guardRefOf(g);
    if (ref === null) return null;
    out.push(ref);
  }
  return out;
}

/** A guard written as JSON (`'name'` or `{ type, params? }`) as a GuardRef, else null. */
export function guardRefOf(value: Json): GuardRef | null {
  if (typeof value === 'string') return { type: value };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  if (typeof value.type !== 'string') return null;
  return value.params === undefined ? { type: value.type } : { type: value.type, params: value.params };
}

export function catalogue(def: MachineDefinition): Catalogue {
  const actions = new Set<string>();
  const guards = new Set<string>();
  const actors = new Set<string>();
  const delays = new Set<string>();
  const addActions = (list: ActionRef[]): void => list.forEach((a) => actions.add(a.type));
  const addGuard = (g: GuardRef): void => {
    const operands = guardOperands(g);
    if (operands === null) guards.add(g.type);
    else operands.forEach(addGuard);
  };
  for (const s of Object.values(def.states)) {
    addActions(s.entry);
    addActions(s.exit);
    for (const inv of s.invoke) actors.add(inv.src);
  }
  for (const t of Object.values(def.transitions)) {
    addActions(t.actions);
    if (t.guard !== null) addGuard(t.guard);
    if (typeof t.event === 'object' && 'after' in t.event && typeof t.event.after === 'string')
      delays.add(t.event.after);
  }
  const sorted = (s: Set<string>): string[] => [...s].sort();
  return { actions: sorted(actions), guards: sorted(guards), actors: sorted(actors), delays: sorted(delays) };
}
