import { triggerText } from '../layout/labels.ts';
import { transitionsBySource } from '../model/tree.ts';
import type { MachineDefinition, StateId, StateNode, Transition } from '../model/types.ts';
import { STATE_FIELDS } from './diff.ts';

/**
 * The structural difference between two versions of a chart, in words, for people and for
 * CI (`chartroom diff`): states matched by their path of keys, transitions by source path,
 * trigger and position among the source's transitions with that trigger. Ids play no part,
 * so two charts imported separately (a file and the room) compare as people see them.
 */

export interface ChartChange {
  kind: 'added' | 'removed' | 'changed';
  what: 'state' | 'transition' | 'machine';
  /** The state's path (`a.b`), or the transition's `source path: trigger`. */
  path: string;
  /** One sentence: "added state `a.b`", "`PAY` from `cart` now goes to `confirming`". */
  text: string;
}

const ROOT = '(root)';

function pathsOf(def: MachineDefinition): Map<StateId, string> {
  const out = new Map<StateId, string>();
  const walk = (id: StateId, path: string): void => {
    out.set(id, path);
    for (const child of def.states[id]?.children ?? []) {
      const key = def.states[child]?.key ?? child;
      walk(child, path === '' ? key : `${path}.${key}`);
    }
  };
  walk(def.root, '');
  return out;
}

const shown = (path: string): string => `\`${path === '' ? ROOT : path}\``;
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What a state holds besides its children, as the diff to ops compares it, and its type. */
const COMPARED: (keyof StateNode)[] = ['type', ...STATE_FIELDS];

interface Keyed {
  key: string;
  trigger: string;
  source: string;
  transition: Transition;
}

function transitionsKeyed(def: MachineDefinition, paths: Map<StateId, string>): Map<string, Keyed> {
  const out = new Map<string, Keyed>();
  for (const [source, list] of transitionsBySource(def)) {
    const seen = new Map<string, number>();
    for (const t of list) {
      const trigger = triggerText(def, t);
      const n = seen.get(trigger) ?? 0;
      seen.set(trigger, n + 1);
      const sourcePath = paths.get(source) ?? source;
      const key = `${sourcePath}: ${trigger}${n === 0 ? '' : ` #${n + 1}`}`;
      out.set(key, { key, trigger, source: sourcePath, transition: t });
    }
  }
  return out;
}

const targetsOf = (t: Transition, paths: Map<StateId, string>): string[] => t.targets.map((id) => paths.get(id) ?? id);

function describeTargets(targets: string[]): string {
  return targets.length === 0 ? 'nowhere (actions only)' : targets.map(shown).join(', ');
}

export function describeDiff(before: MachineDefinition, after: MachineDefinition): ChartChange[] {
  const changes: ChartChange[] = [];
  const beforePaths = pathsOf(before);
  const afterPaths = pathsOf(after);
  const beforeByPath = new Map([...beforePaths].map(([id, p]) => [p, id]));
  const afterByPath = new Map([...afterPaths].map(([id, p]) => [p, id]));

  if (!same(before.context, after.context))
    changes.push({ kind: 'changed', what: 'machine', path: '', text: 'the machine’s context changed' });

  for (const [path, id] of afterByPath) {
    const was = beforeByPath.get(path);
    const now = after.states[id] as StateNode;
    if (was === undefined) {
      const parent = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '';
      const under = parent === '' ? '' : ` under ${shown(parent)}`;
      changes.push({ kind: 'added', what: 'state', path, text: `added state ${shown(path)}${under}` });
      continue;
    }
    const old = before.states[was] as StateNode;
    const fields = COMPARED.filter((f) => !same(old[f], now[f]));
    const oldInitial = old.initial === null ? null : (beforePaths.get(old.initial) ?? null);
    const newInitial = now.initial === null ? null : (afterPaths.get(now.initial) ?? null);
    if (oldInitial !== newInitial) fields.push('initial');
    if (fields.length > 0)
      changes.push({ kind: 'changed', what: 'state', path, text: `${shown(path)} changed: ${fields.join(', ')}` });
  }
  for (const path of beforeByPath.keys())
    if (!afterByPath.has(path))
      changes.push({ kind: 'removed', what: 'state', path, text: `removed state ${shown(path)}` });

  const beforeT = transitionsKeyed(before, beforePaths);
  const afterT = transitionsKeyed(after, afterPaths);
  for (const [key, now] of afterT) {
    const was = beforeT.get(key);
    const targets = targetsOf(now.transition, afterPaths);
    const head = `\`${now.trigger}\` from ${shown(now.source)}`;
    if (!was) {
      changes.push({
        kind: 'added',
        what: 'transition',
        path: key,
        text: `added ${head} to ${describeTargets(targets)}`,
      });
      continue;
    }
    const oldTargets = targetsOf(was.transition, beforePaths);
    const parts: string[] = [];
    if (!same(oldTargets, targets)) parts.push(`now goes to ${describeTargets(targets)}`);
    if (!same(was.transition.guard, now.transition.guard))
      parts.push(now.transition.guard ? `is now guarded by \`${now.transition.guard.type}\`` : 'has no guard now');
    if (!same(was.transition.actions, now.transition.actions)) {
      const list = now.transition.actions.map((a) => `\`${a.type}\``).join(', ');
      parts.push(list === '' ? 'runs no actions now' : `now runs ${list}`);
    }
    if (was.transition.reenter !== now.transition.reenter)
      parts.push(now.transition.reenter ? 're-enters now' : 'no longer re-enters');
    if (
      !same(was.transition.description, now.transition.description) ||
      !same(was.transition.meta, now.transition.meta)
    )
      parts.push('has new notes');
    if (parts.length > 0)
      changes.push({ kind: 'changed', what: 'transition', path: key, text: `${head} ${parts.join('; ')}` });
  }
  for (const [key, was] of beforeT)
    if (!afterT.has(key))
      changes.push({
        kind: 'removed',
        what: 'transition',
        path: key,
        text: `removed \`${was.trigger}\` from ${shown(was.source)}`,
      });
  return changes;
}
