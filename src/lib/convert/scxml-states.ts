import { DEFAULT_MACHINE_ID } from '../model/import-targets.ts';
import { keyPath } from '../model/paths.ts';
import type { Json, JsonObject } from '../model/types.ts';
import { safeId } from './scxml-export.ts';
import { elements, type XmlElement } from './xml.ts';
import { ScxmlScope, STATE_TAGS } from './scxml-scope.ts';

/** Reads SCXML states, the datamodel and the document root into an XState JSON config. */
export class Reader extends ScxmlScope {
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
