import { DEFAULT_MACHINE_ID } from './import-targets.ts';
import { isWithin, keyPathOf, relativeKeys, transitionsBySource } from './tree.ts';
import type { ActionRef, Json, JsonObject, MachineDefinition, StateId, StateNode, Transition } from './types.ts';

/**
 * MachineDefinition -> XState v5 JSON config, in one canonical ("normalised") form, so
 * `exportXState(importXState(cfg))` deep-equals `cfg` whenever `cfg` is already in it:
 * - a transition that is only one target is a string (`'idle'`), otherwise an object;
 *   several transitions for one trigger are an array of objects;
 * - one target is a string, several an array; one action/invocation is bare, several an
 *   array; an action or guard without params is its name;
 * - `atomic`/`compound` are implied by `states` (written only when the stored type
 *   disagrees), `history` is always written on history states;
 * - targets are written as `.child` (below the source), `sibling.child` (below the
 *   source's parent) or `#id` (explicit id, else `#<machineId>.<path>`).
 */

function ref(a: ActionRef): Json {
  return a.params === undefined ? a.type : { type: a.type, params: a.params };
}

function one<T extends Json>(list: T[]): Json | undefined {
  if (list.length === 0) return undefined;
  return list.length === 1 ? list[0] : list;
}

class Exporter {
  private readonly bySource: Map<StateId, Transition[]>;
  constructor(private readonly def: MachineDefinition) {
    this.bySource = transitionsBySource(def);
  }

  private node(id: StateId): StateNode {
    const n = this.def.states[id];
    if (!n) throw new Error(`definition is inconsistent: missing state ${id}`);
    return n;
  }

  /** The shortest target string that XState resolves from `source` back to `target`. */
  target(source: StateId, target: StateId): string {
    const src = this.node(source);
    if (target !== source && isWithin(this.def, target, source))
      return `.${relativeKeys(this.def, target, source).join('.')}`;
    if (src.parent !== null && target !== src.parent && isWithin(this.def, target, src.parent)) {
      return relativeKeys(this.def, target, src.parent).join('.');
    }
    return this.idRef(target);
  }

  private idRef(target: StateId): string {
    const t = this.node(target);
    if (t.parent === null) return `#${this.def.machineId ?? DEFAULT_MACHINE_ID}`;
    if (t.xstateId !== null) return `#${t.xstateId}`;
    return `#${[this.def.machineId ?? DEFAULT_MACHINE_ID, ...keyPathOf(this.def, target)].join('.')}`;
  }

  private transitionValue(list: Transition[]): Json | undefined {
    const objects = list.map((t) => this.transitionObject(t));
    if (objects.length === 0) return undefined;
    if (objects.length > 1) return objects;
    const only = list[0] as Transition;
    const onlyTarget = objects[0] as JsonObject;
    if (Object.keys(onlyTarget).length === 1 && typeof onlyTarget.target === 'string' && only.targets.length === 1)
      return onlyTarget.target;
    return onlyTarget;
  }

  private transitionObject(t: Transition): JsonObject {
    const out: JsonObject = {};
    const targets = t.targets.map((target) => this.target(t.source, target));
    const target = one(targets);
    if (target !== undefined) out.target = target;
    if (t.guard !== null) out.guard = ref(t.guard);
    const actions = one(t.actions.map(ref));
    if (actions !== undefined) out.actions = actions;
    if (t.reenter) out.reenter = true;
    if (t.description !== null) out.description = t.description;
    if (t.meta !== null) out.meta = t.meta;
    return out;
  }

  state(id: StateId): JsonObject {
    const n = this.node(id);
    const out: JsonObject = {};
    if (n.parent === null) {
      if (this.def.machineId !== null) out.id = this.def.machineId;
    } else if (n.xstateId !== null) out.id = n.xstateId;
    if (n.description !== null) out.description = n.description;
    const implied = n.children.length > 0 ? 'compound' : 'atomic';
    if (n.type !== implied) out.type = n.type;
    if (n.type === 'history') {
      out.history = n.history ?? 'shallow';
      if (n.historyTarget !== null && n.parent !== null) out.target = this.historyTarget(n.parent, n.historyTarget);
    }
    if (n.parent === null && this.def.context !== null) out.context = this.def.context;
    if (n.initial !== null) out.initial = this.node(n.initial).key;
    if (n.tags.length > 0) out.tags = [...n.tags];
    const entry = one(n.entry.map(ref));
    if (entry !== undefined) out.entry = entry;
    const exit = one(n.exit.map(ref));
    if (exit !== undefined) out.exit = exit;
    this.transitions(n, out);
    if (n.output !== null) out.output = n.output.value;
    if (n.meta !== null) out.meta = n.meta;
    if (n.children.length > 0) {
      const states: JsonObject = {};
      for (const c of n.children) states[this.node(c).key] = this.state(c);
      out.states = states;
    }
    return out;
  }

  private historyTarget(parent: StateId, target: StateId): string {
    if (target !== parent && isWithin(this.def, target, parent))
      return relativeKeys(this.def, target, parent).join('.');
    return this.idRef(target);
  }

  private transitions(n: StateNode, out: JsonObject): void {
    const list = this.bySource.get(n.id) ?? [];
    const on = new Map<string, Transition[]>();
    const after = new Map<string, Transition[]>();
    const always: Transition[] = [];
    const done: Transition[] = [];
    const invoked = new Map<string, Transition[]>();
    const push = <K>(map: Map<K, Transition[]>, key: K, t: Transition): void => {
      const l = map.get(key);
      if (l) l.push(t);
      else map.set(key, [t]);
    };
    for (const t of list) {
      const e = t.event;
      if (typeof e === 'string') push(on, e, t);
      else if ('always' in e) always.push(t);
      else if ('after' in e) push(after, String(e.after), t);
      else if ('done' in e) done.push(t);
      else push(invoked, `${e.invoke}\u0000${e.outcome}`, t);
    }
    if (n.invoke.length > 0) {
      const invocations = n.invoke.map((inv) => {
        const o: JsonObject = { src: inv.src };
        if (inv.id !== undefined) o.id = inv.id;
        if (inv.systemId !== undefined) o.systemId = inv.systemId;
        if (inv.input !== undefined) o.input = inv.input;
        for (const [key, outcome] of [
          ['onDone', 'done'],
          ['onError', 'error'],
          ['onSnapshot', 'snapshot'],
        ] as const) {
          const v = this.transitionValue(invoked.get(`${inv.uid}\u0000${outcome}`) ?? []);
          if (v !== undefined) o[key] = v;
        }
        return o;
      });
      out.invoke = one(invocations) as Json;
    }
    const group = (map: Map<string, Transition[]>): JsonObject => {
      const o: JsonObject = {};
      for (const [k, ts] of map) o[k] = this.transitionValue(ts) as Json;
      return o;
    };
    if (on.size > 0) out.on = group(on);
    if (after.size > 0) out.after = group(after);
    const alwaysValue = this.transitionValue(always);
    if (alwaysValue !== undefined) out.always = alwaysValue;
    const doneValue = this.transitionValue(done);
    if (doneValue !== undefined) out.onDone = doneValue;
  }
}

export function exportXState(def: MachineDefinition): JsonObject {
  return new Exporter(def).state(def.root);
}

/** The target string XState would need to reach `target` from a transition of `source`. */
export function targetString(def: MachineDefinition, source: StateId, target: StateId): string {
  return new Exporter(def).target(source, target);
}
