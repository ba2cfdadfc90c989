import type { ImportOptions } from '../model/import.ts';
import { DEFAULT_MACHINE_ID } from '../model/import-targets.ts';
import { indexPath, keyPath } from '../model/paths.ts';
import type { Issue, Json, JsonObject } from '../model/types.ts';
import { finish, issueAt, MAX_SOURCE, type ConvertResult, type Spans } from './issues.ts';
import { safeId } from './scxml-export.ts';
import { elements, parseXml, XmlError, type XmlElement } from './xml.ts';

/**
 * SCXML -> definition, through an XState JSON config (so targets resolve exactly as in
 * every other import). Reads what `exportScxml` writes and plain W3C SCXML: standard
 * executable content (`<raise>`, `<assign>`, `<log>`, `<send>`, `<script>`, ...) becomes a
 * named placeholder action carrying its attributes, with a warning; anything else it
 * cannot model is reported with its line and column and left out.
 */

const STATE_TAGS = new Set(['state', 'parallel', 'final', 'history']);

interface Info {
  /** Key path from the root (empty for the root). */
  keys: string[];
  xstateId: string | null;
}

class Reader {
  readonly issues: Issue[] = [];
  readonly spans: Spans = new Map();
  /** SCXML id -> where the state sits, for targets. */
  private readonly byId = new Map<string, Info>();
  /** Key path -> its element, to follow default entries down a deep initial target. */
  private readonly elByPath = new Map<string, XmlElement>();
  /** Whether the state being read sits in a <parallel> (where an added sibling would be a region). */
  private inParallel = false;
  /** Key path of the state being read, for transitions that stay inside it. */
  private current: string[] = [];
  /** States the reader adds beside a history state (its default transition with actions). */
  private siblings: [string, JsonObject][] = [];
  /** `<data>` declared inside states: SCXML binds them all machine-wide, like XState's context. */
  readonly stateData: { el: XmlElement; path: string }[] = [];
  private rootId = DEFAULT_MACHINE_ID;
  private readonly pending: { raw: string; el: XmlElement; path: string; set: (v: string[]) => void }[] = [];

  constructor(private readonly text: string) {}

  private warn(el: XmlElement, path: string, message: string): void {
    this.issues.push(issueAt(this.text, 'warning', path, message, el.start, el.end));
  }

  private error(el: XmlElement, path: string, message: string): void {
    this.issues.push(issueAt(this.text, 'error', path, message, el.start, el.end));
  }

  private json(el: XmlElement, path: string, attr: string): Json | undefined {
    const raw = el.attrs[attr];
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as Json;
    } catch {
      this.error(el, path, `${attr} is not JSON`);
      return undefined;
    }
  }

  private actions(parent: XmlElement, path: string): Json[] {
    const out: Json[] = [];
    for (const el of elements(parent)) {
      const at = indexPath(path, out.length);
      if (el.name === 'cr:action') {
        const type = el.attrs.type;
        if (type === undefined || type === '') {
          this.error(el, at, '<cr:action> needs a type');
          continue;
        }
        const params = this.json(el, at, 'params');
        out.push(params === undefined ? type : { type, params });
      } else if (!STATE_TAGS.has(el.name) && el.name !== 'transition' && el.name !== 'invoke') {
        const params: JsonObject = { ...el.attrs };
        const text = el.children
          .map((c) => ('text' in c ? c.text : ''))
          .join('')
          .trim();
        if (text !== '') params.text = text;
        const type = `scxml.${el.name}`;
        this.warn(el, at, `<${el.name}> is kept as a placeholder action named "${type}"; name it in setup()`);
        out.push(Object.keys(params).length > 0 ? { type, params } : type);
      }
    }
    return out;
  }

  private one(list: Json[]): Json | undefined {
    return list.length === 0 ? undefined : list.length === 1 ? list[0] : list;
  }

  /** First pass: every state's SCXML id and key path. */
  index(el: XmlElement, keys: string[], parentId: string | null): void {
    const stack: [XmlElement, string[], string | null][] = [[el, keys, parentId]];
    while (stack.length > 0) {
      const [node, path, parent] = stack.pop() as [XmlElement, string[], string | null];
      for (const child of elements(node)) {
        if (!STATE_TAGS.has(child.name)) continue;
        const id = child.attrs.id;
        const { key, xstateId } = this.keyOf(child, parent);
        const info = { keys: [...path, key], xstateId };
        if (id !== undefined) {
          if (this.byId.has(id)) this.error(child, '', `duplicate state id "${id}"`);
          else {
            this.byId.set(id, info);
            this.elByPath.set(info.keys.join('\u0000'), child);
          }
        }
        stack.push([child, info.keys, id ?? null]);
      }
    }
  }

  private keyOf(el: XmlElement, parentId: string | null): { key: string; xstateId: string | null } {
    const id = el.attrs.id ?? '';
    const explicit = el.attrs['cr:key'];
    if (explicit !== undefined) return { key: explicit, xstateId: el.attrs['cr:id'] ?? id };
    // An id the export had to change to be valid SCXML (a key with a space, say) names its key.
    const pathKey = el.attrs['cr:pathkey'];
    if (pathKey !== undefined) return { key: pathKey, xstateId: null };
    if (parentId === null) return { key: id, xstateId: null };
    if (id.startsWith(`${parentId}.`)) return { key: id.slice(parentId.length + 1), xstateId: null };
    return { key: id, xstateId: null };
  }

  private target(raw: string): string | null {
    const info = this.byId.get(raw);
    if (!info) return null;
    if (info.xstateId !== null) return `#${info.xstateId}`;
    return `#${[this.rootId, ...info.keys].join('.')}`;
  }

  private targets(el: XmlElement, path: string, raw: string): Json | undefined {
    const list: string[] = [];
    for (const id of raw.split(/\s+/).filter((s) => s !== '')) {
      const t = this.target(id);
      if (t === null) this.error(el, path, `unknown target "${id}": no state has that id; left out`);
      else list.push(t);
    }
    return list.length === 0 ? undefined : list.length === 1 ? list[0] : list;
  }

  /** Whether every target of a transition is the current state or inside it. */
  private staysInside(raw: string | undefined): boolean {
    const ids = (raw ?? '').split(/\s+/).filter((x) => x !== '');
    return (
      ids.length > 0 &&
      ids.every((id) => {
        const keys = this.byId.get(id)?.keys;
        return keys !== undefined && this.current.every((k, i) => keys[i] === k);
      })
    );
  }

  private transitionObject(el: XmlElement, path: string): JsonObject {
    const out: JsonObject = {};
    const target =
      el.attrs.target === undefined ? undefined : this.targets(el, keyPath(path, 'target'), el.attrs.target);
    if (target !== undefined) out.target = target;
    const guard = this.json(el, path, 'cr:guard');
    if (guard !== undefined) out.guard = guard;
    else if (el.attrs.cond !== undefined) out.guard = el.attrs.cond;
    const actions = this.one(this.actions(el, keyPath(path, 'actions')));
    if (actions !== undefined) out.actions = actions;
    // SCXML's default type is "external": a transition to its own state or one inside it
    // exits and re-enters its source, which is XState's `reenter: true`.
    if (el.attrs.type === 'external' || (el.attrs.type === undefined && this.staysInside(el.attrs.target)))
      out.reenter = true;
    if (el.attrs['cr:description'] !== undefined) out.description = el.attrs['cr:description'];
    const meta = this.json(el, path, 'cr:meta');
    if (meta !== undefined) out.meta = meta;
    this.spans.set(path, { start: el.start, end: el.end });
    return out;
  }

  /** `done.state.<id>` of another state: the event XState raises when that state is done. */
  private eventName(e: string): string {
    if (!e.startsWith('done.state.')) return e;
    const t = this.target(e.slice('done.state.'.length));
    return t === null ? e : `xstate.done.state.${t.slice(1)}`;
  }

  /** The key of the child a state enters by default, when SCXML says it without actions. */
  private defaultKey(el: XmlElement, keys: string[]): string | null {
    const children = elements(el).filter((c) => STATE_TAGS.has(c.name) && c.name !== 'history');
    const parentId = el.attrs.id ?? keys[keys.length - 1] ?? null;
    const initialEl = elements(el).find((c) => c.name === 'initial');
    const transition = initialEl ? elements(initialEl).find((c) => c.name === 'transition') : undefined;
    if (transition && elements(transition).length > 0) return null;
    const raw = el.attrs.initial ?? transition?.attrs.target;
    const child = raw === undefined ? children[0] : children.find((c) => c.attrs.id === raw.trim());
    return child ? this.keyOf(child, parentId).key : null;
  }

  /**
   * A state's initial child. SCXML's default is the first child state in document order;
   * an `<initial>` element's transition, or an initial deeper than a child, is followed
   * down; what XState's `initial` (one child, no actions) cannot say becomes a step state
   * that moves on at once.
   */
  private initial(
    el: XmlElement,
    path: string,
    parentId: string | null,
    children: XmlElement[],
    keys: string[],
  ): { key: string; step?: JsonObject } | null {
    if (children.length === 0 || el.attrs['cr:initial'] === 'none') return null;
    // Only a <state> has a default initial child (a kept invalid chart may give another one an initial).
    if (el.name !== 'state' && el.attrs.initial === undefined) return null;
    const p = keyPath(path, 'initial');
    const initialEl = elements(el).find((c) => c.name === 'initial');
    const transition = initialEl ? elements(initialEl).find((c) => c.name === 'transition') : undefined;
    const raw = el.attrs.initial ?? transition?.attrs.target;
    const first = children.find((c) => c.name !== 'history');
    const fallback = first && el.name === 'state' ? { key: this.keyOf(first, parentId).key } : null;
    if (raw === undefined) {
      if (initialEl) this.error(initialEl, p, '<initial> needs a <transition target>; the first child is used');
      return fallback;
    }
    const actions = transition ? this.actions(transition, keyPath(p, 'actions')) : [];
    const ids = raw.split(/\s+/).filter((x) => x !== '');
    const direct = ids.length === 1 ? children.find((c) => c.attrs.id === ids[0]) : undefined;
    if (direct && actions.length === 0) return { key: this.keyOf(direct, parentId).key };
    const infos = ids.map((id) => this.byId.get(id));
    const outside = ids.find((_, i) => {
      const k = infos[i]?.keys;
      return k === undefined || k.length <= keys.length || !keys.every((x, j) => k[j] === x);
    });
    if (outside !== undefined || ids.length === 0) {
      this.error(initialEl ?? el, p, `initial "${outside ?? ''}" is not inside this state; the first child is used`);
      return fallback;
    }
    const only = infos[0]?.keys;
    if (actions.length === 0 && ids.length === 1 && only !== undefined && this.entersByDefault(keys, only))
      return { key: only[keys.length] as string };
    let key = '$initial';
    while (children.some((c) => this.keyOf(c, parentId).key === key)) key = `$${key}`;
    const targets = ids.map((id) => this.target(id) as string);
    this.warn(
      initialEl ?? el,
      p,
      `the initial transition is kept as a step state "${key}" that moves on at once: XState's initial names one child and runs no actions`,
    );
    const step: JsonObject = { target: targets.length === 1 ? (targets[0] as string) : targets };
    const list = this.one(actions);
    if (list !== undefined) step.actions = list;
    return { key, step: { always: step } };
  }

  /** Whether entering the state at `from` by default reaches the state at `to` (every state between defaults to the next). */
  private entersByDefault(from: string[], to: string[]): boolean {
    for (let d = from.length + 1; d < to.length; d++) {
      const el = this.elByPath.get(to.slice(0, d).join('\u0000'));
      if (!el) return false;
      if (el.name === 'parallel') continue;
      if (this.defaultKey(el, to.slice(0, d)) !== to[d]) return false;
    }
    return true;
  }

  /**
   * A history state's default transition with actions: XState's history target runs none,
   * so the target becomes a step state beside the history state that runs them and moves on.
   */
  private defaultStep(el: XmlElement, path: string, keys: string[], target: string, actions: Json[]): string {
    const parent = keys.slice(0, -1);
    const key = `$${keys[keys.length - 1] ?? 'history'}-default`;
    if (this.inParallel) {
      this.warn(
        el,
        keyPath(path, 'target'),
        'the actions of a history default in a <parallel> are left out (a step state there would be a region)',
      );
      return target;
    }
    const step: JsonObject = { target };
    const list = this.one(actions);
    if (list !== undefined) step.actions = list;
    this.siblings.push([key, { always: step }]);
    this.warn(
      el,
      keyPath(path, 'target'),
      `the default transition's actions run in a step state "${key}": XState's history target runs none`,
    );
    return `#${[this.rootId, ...parent, key].join('.')}`;
  }

  state(el: XmlElement, path: string, ownId: string, isRoot: boolean, keys: string[] = []): JsonObject {
    this.spans.set(path, { start: el.start, end: el.end });
    this.current = keys;
    const out: JsonObject = {};
    const { xstateId } = isRoot ? { xstateId: null } : this.keyOf(el, null);
    if (!isRoot && el.attrs['cr:key'] !== undefined && xstateId !== null) out.id = xstateId;
    if (el.attrs['cr:description'] !== undefined) out.description = el.attrs['cr:description'];
    const children = elements(el).filter((c) => STATE_TAGS.has(c.name));
    if (el.name === 'parallel') out.type = 'parallel';
    else if (el.name === 'final') out.type = 'final';
    else if (el.name === 'history') {
      out.type = 'history';
      out.history = el.attrs.type === 'deep' ? 'deep' : 'shallow';
    } else if (el.attrs['cr:type'] !== undefined) {
      out.type = el.attrs['cr:type'];
      if (out.type === 'history') out.history = el.attrs['cr:history'] === 'deep' ? 'deep' : 'shallow';
    }
    const initial = this.initial(el, path, isRoot ? null : ownId, children, keys);
    if (initial !== null) out.initial = initial.key;
    const tags = this.json(el, path, 'cr:tags');
    if (tags !== undefined) out.tags = tags;
    const entry: Json[] = [];
    const exit: Json[] = [];
    const invoke: JsonObject[] = [];
    const on = new Map<string, Json[]>();
    const after = new Map<string, Json[]>();
    const always: Json[] = [];
    const done: Json[] = [];
    const outcomes = new Map<string, Json[]>();
    const push = (map: Map<string, Json[]>, k: string, v: Json): void => {
      const l = map.get(k);
      if (l) l.push(v);
      else map.set(k, [v]);
    };
    for (const child of elements(el)) {
      if (STATE_TAGS.has(child.name)) continue;
      if (child.name === 'onentry') entry.push(...this.actions(child, keyPath(path, 'entry')));
      else if (child.name === 'onexit') exit.push(...this.actions(child, keyPath(path, 'exit')));
      else if (child.name === 'invoke') {
        const inv: JsonObject = { src: child.attrs.src ?? child.attrs.type ?? 'unknown' };
        if (child.attrs.src === undefined)
          this.warn(child, keyPath(path, 'invoke'), '<invoke> has no src; named "unknown"');
        if (child.attrs.id !== undefined) inv.id = child.attrs.id;
        if (child.attrs['cr:systemId'] !== undefined) inv.systemId = child.attrs['cr:systemId'];
        const input = this.json(child, keyPath(path, 'invoke'), 'cr:input');
        if (input !== undefined) inv.input = input;
        invoke.push(inv);
      } else if (child.name === 'transition') {
        if (
          el.name === 'history' &&
          child.attrs.event === undefined &&
          child.attrs['cr:always'] === undefined &&
          out.target === undefined
        ) {
          const raw = child.attrs.target;
          const t = raw === undefined ? null : this.target(raw.trim());
          if (t === null) {
            this.error(child, keyPath(path, 'target'), `unknown history target "${raw ?? ''}"; left out`);
            continue;
          }
          out.target = t;
          const actions = this.actions(child, keyPath(path, 'target'));
          if (actions.length > 0) out.target = this.defaultStep(child, path, keys, t, actions);
          continue;
        }
        const event = child.attrs.event;
        const delay = child.attrs['cr:after'];
        const invokeIndex = child.attrs['cr:invoke'];
        if (delay !== undefined)
          push(after, delay, this.transitionObject(child, keyPath(keyPath(path, 'after'), delay)));
        else if (invokeIndex !== undefined) {
          const outcome = child.attrs['cr:outcome'] ?? 'done';
          push(outcomes, `${invokeIndex}:${outcome}`, this.transitionObject(child, keyPath(path, 'invoke')));
        } else if (event === undefined || event === '')
          always.push(this.transitionObject(child, keyPath(path, 'always')));
        else if (event === `done.state.${ownId}`) done.push(this.transitionObject(child, keyPath(path, 'onDone')));
        else {
          // SCXML allows several space-separated event descriptors; each is its own trigger here.
          const events = child.attrs['cr:event'] ?? event;
          for (const e of child.attrs['cr:event'] !== undefined
            ? [events]
            : events.split(/\s+/).filter((s) => s !== '')) {
            const name = this.eventName(e);
            push(on, name, this.transitionObject(child, keyPath(keyPath(path, 'on'), name)));
          }
        }
      } else if (child.name === 'donedata') {
        const content = elements(child).find((c) => c.name === 'content');
        const expr = content ? this.json(content, keyPath(path, 'output'), 'expr') : undefined;
        if (expr !== undefined) out.output = expr;
        else this.warn(child, keyPath(path, 'output'), '<donedata> without a JSON <content expr> is left out');
      } else if (child.name === 'datamodel') {
        if (!isRoot) this.stateData.push({ el: child, path });
      } else if (child.name === 'initial') {
        continue;
      } else this.warn(child, path, `<${child.name}> is not supported here; left out`);
    }
    const flat = (list: Json[]): Json | undefined => this.one(list);
    const e = flat(entry);
    if (e !== undefined) out.entry = e;
    const x = flat(exit);
    if (x !== undefined) out.exit = x;
    const group = (map: Map<string, Json[]>): JsonObject => {
      const o: JsonObject = {};
      for (const [k, v] of map)
        Object.defineProperty(o, k, {
          value: v.length === 1 ? v[0] : v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return o;
    };
    if (invoke.length > 0) {
      invoke.forEach((inv, i) => {
        for (const [key, outcome] of [
          ['onDone', 'done'],
          ['onError', 'error'],
          ['onSnapshot', 'snapshot'],
        ] as const) {
          const list = outcomes.get(`${i}:${outcome}`);
          if (list) inv[key] = list.length === 1 ? (list[0] as Json) : list;
        }
      });
      out.invoke = invoke.length === 1 ? (invoke[0] as JsonObject) : invoke;
    }
    if (on.size > 0) out.on = group(on);
    if (after.size > 0) out.after = group(after);
    const a = flat(always);
    if (a !== undefined) out.always = a;
    const d = flat(done);
    if (d !== undefined) out.onDone = d;
    const meta = this.json(el, path, 'cr:meta');
    if (meta !== undefined) out.meta = meta;
    if (children.length > 0) {
      const states: JsonObject = {};
      for (const c of children) {
        const { key } = this.keyOf(c, isRoot ? null : ownId);
        const childId = c.attrs.id ?? key;
        const childPath = keyPath(keyPath(path, 'states'), key);
        this.inParallel = el.name === 'parallel';
        if (Object.hasOwn(states, key)) {
          this.error(c, childPath, `two states named "${key}" under one parent; the second is left out`);
          continue;
        }
        Object.defineProperty(states, key, {
          value: this.state(c, childPath, childId, false, [...keys, key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        for (const [k, v] of this.siblings.splice(0)) states[k] = v;
        this.current = keys;
      }
      if (initial?.step) states[initial.key] = initial.step;
      out.states = states;
    }
    return out;
  }

  /** One `<data>`: JSON stays data; an ECMAScript expression is kept as `{ $expr }` to name in code. */
  private data(d: XmlElement, context: JsonObject): void {
    const id = d.attrs.id;
    const path = id === undefined ? 'context' : keyPath('context', id);
    if (d.name !== 'data' || id === undefined) {
      this.warn(d, 'context', `<${d.name}> in <datamodel> is not a <data id>; left out`);
      return;
    }
    if (Object.hasOwn(context, id)) {
      this.warn(d, path, `<data id="${id}"> is declared twice; the first is kept`);
      return;
    }
    const text = d.children
      .map((c) => ('text' in c ? c.text : ''))
      .join('')
      .trim();
    const raw = d.attrs.expr ?? (text === '' ? undefined : text);
    let value: Json = null;
    if (d.attrs.src !== undefined) {
      value = { $expr: `src:${d.attrs.src}` };
      this.warn(d, path, `<data src> is not loaded; kept as the expression "src:${d.attrs.src}"`);
    } else if (raw !== undefined) {
      try {
        value = JSON.parse(raw) as Json;
      } catch {
        value = { $expr: raw };
        this.warn(
          d,
          path,
          `the ECMAScript expression ${raw.slice(0, 60)} is kept as an expression ({ $expr }), not evaluated`,
        );
      }
    }
    Object.defineProperty(context, id, { value, enumerable: true, writable: true, configurable: true });
  }

  document(root: XmlElement): JsonObject | null {
    if (root.name !== 'scxml') {
      this.error(root, '', `expected an <scxml> document, found <${root.name}>`);
      return null;
    }
    const name = root.attrs.name;
    this.rootId = name ?? DEFAULT_MACHINE_ID;
    const states = elements(root).filter((c) => STATE_TAGS.has(c.name));
    const wrapper = states.length === 1 && states[0]?.attrs['cr:root'] === 'true' ? states[0] : null;
    let config: JsonObject;
    if (wrapper) {
      this.byId.set(wrapper.attrs.id ?? this.rootId, { keys: [], xstateId: null });
      this.index(wrapper, [], null);
      config = this.state(wrapper, '', wrapper.attrs.id ?? this.rootId, true);
    } else {
      // <scxml name> is the machine's name, not a state id: a state may carry the same id.
      this.index(root, [], null);
      // A target naming the root uses its name as exported: made a valid id.
      for (const id of [this.rootId, safeId(this.rootId)])
        if (!this.byId.has(id)) this.byId.set(id, { keys: [], xstateId: null });
      const synthetic: XmlElement = { ...root, name: 'state', attrs: { ...root.attrs, id: this.rootId } };
      delete synthetic.attrs.type;
      config = this.state(synthetic, '', this.rootId, true);
      delete config.type;
    }
    const ordered: JsonObject = {};
    if (name !== undefined) ordered.id = name;
    for (const [k, v] of Object.entries(config)) ordered[k] = v;
    const datamodel = elements(root).find((c) => c.name === 'datamodel');
    const models = [...(datamodel ? [{ el: datamodel, path: '' }] : []), ...this.stateData];
    if (models.length > 0) {
      const context: JsonObject = {};
      for (const { el, path } of models) {
        if (path !== '')
          this.warn(
            el,
            path,
            "a state's <datamodel> is kept in the machine's context (SCXML binds every <data> machine-wide)",
          );
        for (const d of elements(el)) this.data(d, context);
      }
      ordered.context = context;
    }
    for (const child of elements(root))
      if (!STATE_TAGS.has(child.name) && child.name !== 'datamodel')
        this.warn(child, '', `<${child.name}> at the top of the document is not supported; left out`);
    return ordered;
  }
}

/** Read a machine from SCXML text. Never throws for bad input. */
export function importScxml(text: string, options: ImportOptions = {}): ConvertResult {
  if (text.length > MAX_SOURCE)
    return {
      definition: null,
      config: null,
      issues: [issueAt('', 'error', '', `the file is too large to import (over ${MAX_SOURCE} characters)`, 0)],
    };
  let root: XmlElement;
  try {
    root = parseXml(text);
  } catch (err) {
    const offset = err instanceof XmlError ? err.offset : 0;
    const message = err instanceof Error ? err.message : String(err);
    return {
      definition: null,
      config: null,
      issues: [issueAt(text, 'error', '', `not well-formed XML: ${message}`, offset)],
    };
  }
  try {
    const reader = new Reader(text);
    const config = reader.document(root);
    if (config === null) return { definition: null, config: null, issues: reader.issues };
    return finish(text, config, reader.spans, reader.issues, { name: root.attrs['cr:name'], ...options });
  } catch (err) {
    return {
      definition: null,
      config: null,
      issues: [
        issueAt(
          text,
          'error',
          '',
          `the SCXML could not be read: ${err instanceof Error ? err.message : String(err)}`,
          0,
        ),
      ],
    };
  }
}
