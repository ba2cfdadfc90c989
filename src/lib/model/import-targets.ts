import type { IssueSink } from './import-parts.ts';
import type { MachineDefinition, StateId } from './types.ts';

/**
 * Target strings resolved the way XState v5 resolves them:
 * - `#id`: a state's explicit id, or its default id `<machineId>.<key path>`
 *   (`(machine)` when the machine has no id);
 * - `.a.b`: a descendant of the transition's own state;
 * - `a.b`: a path from the source's parent (a sibling or something inside one); not
 *   allowed from the root, which has no parent.
 */

export interface PendingTarget {
  transition: string;
  source: StateId;
  raw: string;
  path: string;
}

export const DEFAULT_MACHINE_ID = '(machine)';

/** Every `#id` a definition answers to: explicit ids first, default ids otherwise. */
export function idIndex(def: MachineDefinition): Map<string, StateId> {
  const index = new Map<string, StateId>();
  const walk = (id: StateId, path: string): void => {
    const node = def.states[id];
    if (!node) return;
    const own = node.parent === null ? (def.machineId ?? DEFAULT_MACHINE_ID) : (node.xstateId ?? path);
    if (!index.has(own)) index.set(own, id);
    for (const c of node.children) {
      const child = def.states[c];
      if (child) walk(c, `${path}.${child.key}`);
    }
  };
  walk(def.root, def.machineId ?? DEFAULT_MACHINE_ID);
  return index;
}

function walkKeys(def: MachineDefinition, from: StateId, keys: string[]): StateId | null {
  let cur: StateId = from;
  for (const key of keys) {
    const node = def.states[cur];
    const next = node?.children.find((c) => def.states[c]?.key === key);
    if (next === undefined) return null;
    cur = next;
  }
  return cur;
}

/** Resolve one target string from `source`; a message when it does not resolve. */
export function resolveTarget(
  def: MachineDefinition,
  ids: Map<string, StateId>,
  source: StateId,
  raw: string,
): { ok: true; id: StateId } | { ok: false; message: string } {
  const unknown = { ok: false as const, message: `unknown target "${raw}"` };
  if (raw === '') return { ok: false, message: 'a target must not be empty' };
  if (raw.startsWith('#')) {
    const id = ids.get(raw.slice(1));
    return id === undefined ? unknown : { ok: true, id };
  }
  const node = def.states[source];
  if (!node) return unknown;
  let found: StateId | null;
  if (node.parent === null) {
    if (!raw.startsWith('.'))
      return {
        ok: false,
        message: `unknown target "${raw}": from the machine root write ".${raw}" (a child) or "#id"`,
      };
    found = walkKeys(def, source, raw.slice(1).split('.'));
  } else if (raw.startsWith('.')) {
    found = walkKeys(def, source, raw.slice(1).split('.'));
  } else {
    found = walkKeys(def, node.parent, raw.split('.'));
  }
  return found === null ? unknown : { ok: true, id: found };
}

export function resolveTargets(
  def: MachineDefinition,
  pending: PendingTarget[],
  historyTargets: { state: StateId; raw: string; path: string }[],
  sink: IssueSink,
): void {
  const ids = idIndex(def);
  for (const p of pending) {
    const r = resolveTarget(def, ids, p.source, p.raw);
    const t = def.transitions[p.transition];
    if (!r.ok) sink.error(p.path, r.message);
    else if (t) t.targets.push(r.id);
  }
  for (const h of historyTargets) {
    const node = def.states[h.state];
    if (!node || node.parent === null) continue;
    // A history's default target is a path from its parent (XState), or an #id.
    const found = h.raw.startsWith('#')
      ? (ids.get(h.raw.slice(1)) ?? null)
      : walkKeys(def, node.parent, h.raw.split('.'));
    if (found === null) sink.error(h.path, `unknown target "${h.raw}"`);
    else node.historyTarget = found;
  }
}
