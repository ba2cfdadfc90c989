import { triggerText } from '../layout/labels.ts';
import { transitionsBySource } from '../model/tree.ts';
import type { MachineDefinition, StateId, StateNode, Transition, TransitionId } from '../model/types.ts';
import { STATE_FIELDS } from './diff.ts';

/**
 * The structural difference between two versions of a chart, in words, for people and for
 * CI (`chartroom diff`), and per element for the visual diff (version-diff.ts). States are
 * matched by their path of keys, transitions by source path, trigger and position among
 * the source's transitions with that trigger. With `byId` (two versions of one machine,
 * whose ids are stable) states and transitions are matched by id first and by path only
 * when the id is not in the other version, so a renamed or moved state reads as changed,
 * not as one removed and one added. Without it ids play no part, so two charts imported
 * separately (a file and the room) compare as people see them.
 */

export interface ChartChange {
  kind: 'added' | 'removed' | 'changed';
  what: 'state' | 'transition' | 'machine';
  /** The state's path (`a.b`), or the transition's `source path: trigger`. */
  path: string;
  /** One sentence: "added state `a.b`", "`PAY` from `cart` now goes to `confirming`". */
  text: string;
  /** The element's id: in `after` when added or changed, in `before` when removed; null for the machine. */
  id: string | null;
}

export interface DiffOptions {
  /** Match states and transitions by id first (two versions of one machine). */
  byId?: boolean;
}

const ROOT = '(root)';

/** Each state's path of keys ('' for the root), in tree order from the root. */
export function pathsOf(def: MachineDefinition): Map<StateId, string> {
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
const parentOf = (path: string): string => (path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '');

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

function describeTargets(targets: string[]): string {
  return targets.length === 0 ? 'nowhere (actions only)' : targets.map(shown).join(', ');
}

/**
 * Pairs `after`'s elements with `before`'s: by id first when `byId`, then by key (path)
 * among the ones left on both sides. Answers after id -> before id.
 */
function pair<T>(
  beforeKeys: Map<string, T>,
  afterKeys: Map<string, T>,
  idOf: (x: T) => string,
  hasBefore: (id: string) => boolean,
  byId: boolean,
): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  if (byId)
    for (const x of afterKeys.values()) {
      const id = idOf(x);
      if (hasBefore(id)) {
        out.set(id, id);
        taken.add(id);
      }
    }
  for (const [key, x] of afterKeys) {
    if (out.has(idOf(x))) continue;
    const was = beforeKeys.get(key);
    if (was !== undefined && !taken.has(idOf(was))) {
      out.set(idOf(x), idOf(was));
      taken.add(idOf(was));
    }
  }
  return out;
}

export function describeDiff(
  before: MachineDefinition,
  after: MachineDefinition,
  options: DiffOptions = {},
): ChartChange[] {
  const byId = options.byId ?? false;
  const changes: ChartChange[] = [];
  const beforePaths = pathsOf(before);
  const afterPaths = pathsOf(after);
  const byPath = (paths: Map<StateId, string>) => new Map([...paths].map(([id, p]) => [p, id]));
  const states = pair(
    byPath(beforePaths),
    byPath(afterPaths),
    (id) => id,
    (id) => beforePaths.has(id),
    byId,
  );
  const matchedBefore = new Set(states.values());
  /** A state of `after` as `before` knew it (its id there), or a mark that it is new. */
  const asBefore = (id: StateId | null): string | null => (id === null ? null : (states.get(id) ?? `new:${id}`));

  if (!same(before.context, after.context))
    changes.push({ kind: 'changed', what: 'machine', path: '', text: 'the machine’s context changed', id: null });

  for (const [id, path] of afterPaths) {
    const was = states.get(id);
    const now = after.states[id] as StateNode;
    if (was === undefined) {
      const parent = parentOf(path);
      const under = parent === '' ? '' : ` under ${shown(parent)}`;
      changes.push({ kind: 'added', what: 'state', path, text: `added state ${shown(path)}${under}`, id });
      continue;
    }
    const old = before.states[was] as StateNode;
    const oldPath = beforePaths.get(was) ?? '';
    const fields: string[] = COMPARED.filter((f) => !same(old[f], now[f]));
    if (asBefore(now.initial) !== old.initial) fields.push('initial');
    const moved =
      oldPath === path
        ? ''
        : parentOf(oldPath) === parentOf(path)
          ? `renamed from ${shown(oldPath)}`
          : `moved from ${shown(oldPath)}`;
    const parts = [moved, fields.length > 0 ? `changed: ${fields.join(', ')}` : ''].filter((p) => p !== '');
    if (parts.length > 0)
      changes.push({ kind: 'changed', what: 'state', path, text: `${shown(path)} ${parts.join('; ')}`, id });
  }
  for (const [id, path] of beforePaths)
    if (!matchedBefore.has(id))
      changes.push({ kind: 'removed', what: 'state', path, text: `removed state ${shown(path)}`, id });

  const beforeT = transitionsKeyed(before, beforePaths);
  const afterT = transitionsKeyed(after, afterPaths);
  const transitions = pair(
    beforeT,
    afterT,
    (k) => k.transition.id,
    (id) => Object.hasOwn(before.transitions, id),
    byId,
  );
  const beforeById = new Map<TransitionId, Keyed>([...beforeT.values()].map((k) => [k.transition.id, k]));
  const matchedT = new Set(transitions.values());
  for (const [key, now] of afterT) {
    const wasId = transitions.get(now.transition.id);
    const was = wasId === undefined ? undefined : beforeById.get(wasId);
    const targets = now.transition.targets.map((id) => afterPaths.get(id) ?? id);
    const head = `\`${now.trigger}\` from ${shown(now.source)}`;
    const id = now.transition.id;
    if (!was) {
      changes.push({
        kind: 'added',
        what: 'transition',
        path: key,
        text: `added ${head} to ${describeTargets(targets)}`,
        id,
      });
      continue;
    }
    const parts: string[] = [];
    if (asBefore(now.transition.source) !== was.transition.source) parts.push(`used to leave ${shown(was.source)}`);
    if (was.trigger !== now.trigger) parts.push(`used to be \`${was.trigger}\``);
    if (!same(now.transition.targets.map(asBefore), was.transition.targets))
      parts.push(`now goes to ${describeTargets(targets)}`);
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
      changes.push({ kind: 'changed', what: 'transition', path: key, text: `${head} ${parts.join('; ')}`, id });
  }
  for (const [key, was] of beforeT)
    if (!matchedT.has(was.transition.id))
      changes.push({
        kind: 'removed',
        what: 'transition',
        path: key,
        text: `removed \`${was.trigger}\` from ${shown(was.source)}`,
        id: was.transition.id,
      });
  return changes;
}
