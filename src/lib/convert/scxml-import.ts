import type { ImportOptions } from '../model/import.ts';
import { DEFAULT_MACHINE_ID } from '../model/import-targets.ts';
import { indexPath, keyPath } from '../model/paths.ts';
import type { Issue, Json, JsonObject } from '../model/types.ts';
import { finish, issueAt, MAX_SOURCE, type ConvertResult, type Spans } from './issues.ts';
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
          else this.byId.set(id, info);
        }
        stack.push([child, info.keys, id ?? null]);
      }
    }
  }

  private keyOf(el: XmlElement, parentId: string | null): { key: string; xstateId: string | null } {
    const id = el.attrs.id ?? '';
    const explicit = el.attrs['cr:key'];
    if (explicit !== undefined) return { key: explicit, xstateId: id };
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
    if (el.attrs.type === 'external') out.reenter = true;
    if (el.attrs['cr:description'] !== undefined) out.description = el.attrs['cr:description'];
    const meta = this.json(el, path, 'cr:meta');
    if (meta !== undefined) out.meta = meta;
    this.spans.set(path, { start: el.start, end: el.end });
    return out;
  }

  state(el: XmlElement, path: string, ownId: string, isRoot: boolean): JsonObject {
    this.spans.set(path, { start: el.start, end: el.end });
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
    if (el.attrs.initial !== undefined) {
      const child = children.find((c) => c.attrs.id === el.attrs.initial);
      if (child) out.initial = this.keyOf(child, ownId).key;
      else
        this.error(
          el,
          keyPath(path, 'initial'),
          `initial "${el.attrs.initial}" is not a child of this state; left out`,
        );
    }
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
          if (t !== null) out.target = t;
          else this.error(child, keyPath(path, 'target'), `unknown history target "${raw ?? ''}"; left out`);
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
          for (const e of event.split(/\s+/).filter((s) => s !== ''))
            push(on, e, this.transitionObject(child, keyPath(keyPath(path, 'on'), e)));
        }
      } else if (child.name === 'donedata') {
        const content = elements(child).find((c) => c.name === 'content');
        const expr = content ? this.json(content, keyPath(path, 'output'), 'expr') : undefined;
        if (expr !== undefined) out.output = expr;
        else this.warn(child, keyPath(path, 'output'), '<donedata> without a JSON <content expr> is left out');
      } else if (child.name === 'datamodel' && isRoot) {
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
        if (Object.hasOwn(states, key)) {
          this.error(c, childPath, `two states named "${key}" under one parent; the second is left out`);
          continue;
        }
        Object.defineProperty(states, key, {
          value: this.state(c, childPath, childId, false),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      out.states = states;
    }
    return out;
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
    this.byId.set(wrapper?.attrs.id ?? this.rootId, { keys: [], xstateId: null });
    if (wrapper) {
      this.index(wrapper, [], null);
      config = this.state(wrapper, '', wrapper.attrs.id ?? this.rootId, true);
    } else {
      this.index(root, [], null);
      const synthetic: XmlElement = { ...root, name: 'state', attrs: { ...root.attrs, id: this.rootId } };
      delete synthetic.attrs.type;
      config = this.state(synthetic, '', this.rootId, true);
      delete config.type;
    }
    const ordered: JsonObject = {};
    if (name !== undefined) ordered.id = name;
    for (const [k, v] of Object.entries(config)) ordered[k] = v;
    const datamodel = elements(root).find((c) => c.name === 'datamodel');
    if (datamodel) {
      const context: JsonObject = {};
      for (const d of elements(datamodel)) {
        const id = d.attrs.id;
        if (d.name !== 'data' || id === undefined) {
          this.warn(d, 'context', `<${d.name}> in <datamodel> is not a <data id>; left out`);
          continue;
        }
        const v = d.attrs.expr === undefined ? null : this.json(d, keyPath('context', id), 'expr');
        if (v !== undefined)
          Object.defineProperty(context, id, { value: v, enumerable: true, writable: true, configurable: true });
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
