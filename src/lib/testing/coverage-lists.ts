import { keyPathOf } from '../model/tree.ts';
import type { MachineDefinition, Transition, TransitionId } from '../model/types.ts';
import type { Coverage } from './coverage.ts';

/**
 * What coverage leaves untested, in words, for the Tests panel's lists: each
 * transition no run took ("PAY: idle → paying"), each guard outcome never met
 * ("`hasCard` is false"), with what to select on the diagram.
 */

export interface UntestedTransition {
  id: TransitionId;
  words: string;
}

export interface UntestedGuard {
  /** `name=true|false`, as Coverage counts it. */
  outcome: string;
  guard: string;
  value: boolean;
  words: string;
  /** The transitions guarded by it, in the definition's order: the first is shown. */
  transitions: TransitionId[];
}

const pathOf = (def: MachineDefinition, id: string) =>
  def.states[id] ? keyPathOf(def, id).join('.') || '(root)' : '(gone)';

function triggerWords(def: MachineDefinition, t: Transition): string {
  const e = t.event;
  if (typeof e === 'string') return e;
  if ('always' in e) return 'always';
  if ('after' in e) return typeof e.after === 'number' ? `after ${e.after} ms` : `after ${e.after}`;
  if ('done' in e) return 'done';
  const inv = def.states[t.source]?.invoke.find((i) => i.uid === e.invoke);
  return `${inv?.src ?? 'invoked'} ${e.outcome}`;
}

export function transitionWords(def: MachineDefinition, t: Transition): string {
  const targets = t.targets.length === 0 ? '(stays)' : t.targets.map((x) => pathOf(def, x)).join(', ');
  const guard = t.guard ? ` [${t.guard.type}]` : '';
  return `${triggerWords(def, t)}${guard}: ${pathOf(def, t.source)} → ${targets}`;
}

export function untestedTransitions(def: MachineDefinition, coverage: Coverage): UntestedTransition[] {
  return coverage.transitions.all
    .filter((id) => !coverage.transitions.covered.has(id))
    .flatMap((id) => {
      const t = def.transitions[id];
      return t ? [{ id, words: transitionWords(def, t) }] : [];
    });
}

export function untestedGuards(def: MachineDefinition, coverage: Coverage): UntestedGuard[] {
  const byGuard = new Map<string, TransitionId[]>();
  for (const t of Object.values(def.transitions))
    if (t.guard) byGuard.set(t.guard.type, [...(byGuard.get(t.guard.type) ?? []), t.id]);
  return coverage.guards.all
    .filter((o) => !coverage.guards.covered.has(o))
    .map((outcome) => {
      const at = outcome.lastIndexOf('=');
      const guard = outcome.slice(0, at);
      const value = outcome.slice(at + 1) === 'true';
      return { outcome, guard, value, words: `\`${guard}\` is ${value}`, transitions: byGuard.get(guard) ?? [] };
    });
}
