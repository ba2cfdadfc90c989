import { keyPathOf, transitionsBySource } from '../model/tree.ts';
import type { MachineDefinition, Transition } from '../model/types.ts';
import type { EventOption } from './events.ts';
import type { GuardValues, SimLogEntry, SimStep } from './types.ts';

/**
 * What a running simulation draws on the diagram besides its active states: the
 * transitions enabled now (their labels are buttons that send their event) and the
 * transitions the step shown just took (marked for a moment). Worked out on the
 * simulation's own definition; transition ids are stable, so the marks land on the same
 * arrows of the definition on screen.
 */

/**
 * The event type a transition answers to, as the simulation sends it: a named event as
 * written, an invocation's outcome as XState's `xstate.done.actor.<id>` /
 * `xstate.error.actor.<id>`; null for what no one sends (always, after, done, wildcards).
 */
export function sendableType(def: MachineDefinition, t: Transition): string | null {
  const e = t.event;
  if (typeof e === 'string') return e.includes('*') ? null : e;
  if ('invoke' in e && e.outcome !== 'snapshot') {
    const inv = def.states[t.source]?.invoke.find((i) => i.uid === e.invoke);
    return inv?.id ? `xstate.${e.outcome}.actor.${inv.id}` : null;
  }
  return null;
}

const guardHolds = (t: Transition, guards: GuardValues): boolean => t.guard === null || guards[t.guard.type] === true;

/**
 * Of the transitions that answer `matches` from the active states, the ones XState would
 * take: per source and event the first (by order) whose guard holds, and none from a state whose
 * active descendant answers too (the deepest state wins).
 */
function chosen(
  def: MachineDefinition,
  active: readonly string[],
  matches: (t: Transition) => boolean,
  guards: GuardValues,
) {
  const activeSet = new Set(active);
  const bySource = transitionsBySource(def);
  const picked: { t: Transition; path: string }[] = [];
  for (const [source, list] of bySource) {
    if (def.states[source] === undefined) continue;
    const path = keyPathOf(def, source).join('.');
    // The root is always active (its path is '').
    if (path !== '' && !activeSet.has(path)) continue;
    // For each event, the first of the source's transitions (by order) whose guard holds.
    const seen = new Set<string>();
    for (const t of list) {
      const key = sendableKey(def, t);
      if (seen.has(key) || !matches(t) || !guardHolds(t, guards)) continue;
      seen.add(key);
      picked.push({ t, path });
    }
  }
  return picked.filter(
    ({ t, path }) =>
      !picked.some(
        (o) =>
          o.t !== t &&
          sendableKey(def, o.t) === sendableKey(def, t) &&
          (path === '' ? o.path !== '' : o.path.startsWith(`${path}.`)),
      ),
  );
}

const sendableKey = (def: MachineDefinition, t: Transition): string =>
  sendableType(def, t) ?? (typeof t.event === 'string' ? t.event : JSON.stringify(t.event));

/** Ids of the transitions that sending their event now would take (`options`: the panel's events at the live end). */
export function enabledTransitions(
  def: MachineDefinition,
  active: readonly string[],
  options: readonly EventOption[],
  guards: GuardValues,
): string[] {
  const enabled = new Set(options.filter((o) => o.enabled).map((o) => o.type));
  if (enabled.size === 0) return [];
  return chosen(
    def,
    active,
    (t) => {
      const type = sendableType(def, t);
      return type !== null && enabled.has(type);
    },
    guards,
  ).map(({ t }) => t.id);
}

/**
 * Ids of the transitions the step `after` took from `before` on `entry`: an event's
 * transitions as chosen under the sender's guard switches, or for advanced time the
 * delayed ones whose target became active or whose source was left. Nothing for an ignored entry.
 */
export function takenTransitions(
  def: MachineDefinition,
  before: SimStep,
  after: SimStep,
  entry: SimLogEntry | undefined,
): string[] {
  if (!entry || after.ignored !== null) return [];
  const now = new Set(after.activePaths);
  const reached = (t: Transition) =>
    t.targets.length === 0 ||
    t.targets.some((id) => def.states[id] !== undefined && now.has(keyPathOf(def, id).join('.')));
  const matches =
    entry.kind === 'time'
      ? (t: Transition) =>
          typeof t.event === 'object' &&
          'after' in t.event &&
          (reached(t) || !now.has(keyPathOf(def, t.source).join('.')))
      : (t: Transition) => sendableType(def, t) === entry.type;
  return chosen(def, before.activePaths, matches, entry.guards).map(({ t }) => t.id);
}

/**
 * What a collapsed state at `path` hides that is active: the deepest active states inside
 * it, as paths relative to it (`retrying`, `light.on`), so the overview still says where
 * the simulation is. Empty when nothing inside is active.
 */
export function activeInside(activePaths: readonly string[], path: string): string[] {
  const prefix = `${path}.`;
  const inside = activePaths.filter((p) => p.startsWith(prefix));
  return inside.filter((p) => !inside.some((o) => o.startsWith(`${p}.`))).map((p) => p.slice(prefix.length));
}
