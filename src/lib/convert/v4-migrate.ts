import { isObject } from '../model/import-parts.ts';
import type { Json, JsonObject } from '../model/types.ts';

/**
 * An XState v4 machine config read as JSON, rewritten to v5 by the rules of XState's v5
 * migration guide. Pure: returns the new config and what changed, in words, with counts.
 * A v5 config comes back unchanged with no changes listed.
 */

/** Root keys v5 no longer reads (options that became defaults, and v4's typegen/schema). */
const V4_ROOT = ['schema', 'tsTypes', 'predictableActionArguments', 'preserveActionOrder', 'strict'];

class Migration {
  readonly changes = new Map<string, number>();

  private note(change: string): void {
    this.changes.set(change, (this.changes.get(change) ?? 0) + 1);
  }

  private rename(o: JsonObject, from: string, to: string): void {
    if (!Object.hasOwn(o, from)) return;
    if (!Object.hasOwn(o, to)) o[to] = o[from] as Json;
    delete o[from];
    this.note(`${from} → ${to}`);
  }

  /** One transition: `cond` is `guard`; `internal: false` is `reenter: true` (v5's default is v4's internal). */
  private transition(t: Json): Json {
    if (!isObject(t)) return t;
    const o = { ...t };
    this.rename(o, 'cond', 'guard');
    if (Object.hasOwn(o, 'internal')) {
      if (o.internal === false) {
        o.reenter = true;
        this.note('internal: false → reenter: true');
      } else this.note('internal: true removed (v5 transitions do not re-enter by default)');
      delete o.internal;
    }
    return o;
  }

  private transitions(v: Json): Json {
    return Array.isArray(v) ? v.map((t) => this.transition(t)) : this.transition(v);
  }

  private map(v: Json): Json {
    if (!isObject(v)) return v;
    const out: JsonObject = {};
    for (const [k, t] of Object.entries(v))
      Object.defineProperty(out, k, {
        value: this.transitions(t),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }

  private invoke(v: Json): Json {
    if (!isObject(v)) return v;
    const o = { ...v };
    this.rename(o, 'data', 'input');
    if (Object.hasOwn(o, 'autoForward')) {
      delete o.autoForward;
      this.note('invoke autoForward removed (forward events with an action)');
    }
    for (const k of ['onDone', 'onError']) if (Object.hasOwn(o, k)) o[k] = this.transitions(o[k] as Json);
    return o;
  }

  state(config: Json, isRoot: boolean): Json {
    if (!isObject(config)) return config;
    const o: JsonObject = { ...config };
    if (isRoot)
      for (const k of V4_ROOT)
        if (Object.hasOwn(o, k)) {
          delete o[k];
          this.note(`${k} removed`);
        }
    this.rename(o, 'onEntry', 'entry');
    this.rename(o, 'onExit', 'exit');
    if (o.parallel === true) {
      delete o.parallel;
      o.type = 'parallel';
      this.note('parallel: true → type: "parallel"');
    }
    if (o.type === 'final') this.rename(o, 'data', 'output');
    if (Object.hasOwn(o, 'activities')) {
      const list = Array.isArray(o.activities) ? o.activities : [o.activities as Json];
      const existing = o.invoke === undefined ? [] : Array.isArray(o.invoke) ? o.invoke : [o.invoke];
      o.invoke = [...existing, ...list.map((a) => (typeof a === 'string' ? { src: a } : a))];
      delete o.activities;
      this.note('activities → invoke');
    }
    if (isObject(o.on)) {
      const on = { ...o.on };
      // v4's null event `''` is v5's `always`.
      if (Object.hasOwn(on, '')) {
        const eventless = on[''] as Json;
        delete on[''];
        const before = o.always === undefined ? [] : Array.isArray(o.always) ? o.always : [o.always];
        o.always = [...before, ...(Array.isArray(eventless) ? eventless : [eventless])];
        this.note("on: { '': ... } → always");
      }
      o.on = this.map(on);
    } else if (Array.isArray(o.on)) o.on = o.on.map((t) => this.transition(t));
    if (o.after !== undefined)
      o.after = Array.isArray(o.after) ? o.after.map((t) => this.transition(t)) : this.map(o.after);
    for (const k of ['always', 'onDone']) if (o[k] !== undefined) o[k] = this.transitions(o[k]);
    if (o.invoke !== undefined)
      o.invoke = Array.isArray(o.invoke) ? o.invoke.map((i) => this.invoke(i)) : this.invoke(o.invoke);
    if (isObject(o.states)) {
      const states: JsonObject = {};
      for (const [k, s] of Object.entries(o.states))
        Object.defineProperty(states, k, {
          value: this.state(s, false),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      o.states = states;
    }
    return o;
  }
}

/** The v5 config and the changes made, e.g. `["cond → guard (×3)", "internal: false → reenter: true"]`. */
export function migrateV4(config: JsonObject): { config: JsonObject; changes: string[] } {
  const m = new Migration();
  const out = m.state(config, true) as JsonObject;
  const changes = [...m.changes].map(([c, n]) => (n > 1 ? `${c} (×${n})` : c));
  return { config: out, changes };
}
