import { DEFAULT_MACHINE_ID } from '../model/import-targets.ts';
import { indexPath, keyPath } from '../model/paths.ts';
import type { Issue, Json, JsonObject } from '../model/types.ts';
import { issueAt, type Spans } from './issues.ts';
import { elements, type XmlElement } from './xml.ts';

/**
 * What the SCXML reader keeps across the document (ids to key paths, the issues found) and
 * the steps below a state: executable content as placeholder actions, targets resolved to
 * XState ids, initial states and default entries. The states themselves are read in
 * scxml-states.ts.
 */

export const STATE_TAGS = new Set(['state', 'parallel', 'final', 'history']);

export interface Info {
  /** Key path from the root (empty for the root). */
  keys: string[];
  xstateId: string | null;
}

export class ScxmlScope {
  readonly issues: Issue[] = [];
  readonly spans: Spans = new Map();
  /** SCXML id -> where the state sits, for targets. */
  protected readonly byId = new Map<string, Info>();
  /** Key path -> its element, to follow default entries down a deep initial target. */
  protected readonly elByPath = new Map<string, XmlElement>();
  /** Whether the state being read sits in a <parallel> (where an added sibling would be a region). */
  protected inParallel = false;
  /** Key path of the state being read, for transitions that stay inside it. */
  protected current: string[] = [];
  /** States the reader adds beside a history state (its default transition with actions). */
  protected siblings: [string, JsonObject][] = [];
  /** `<data>` declared inside states: SCXML binds them all machine-wide, like XState's context. */
  readonly stateData: { el: XmlElement; path: string }[] = [];
  protected rootId = DEFAULT_MACHINE_ID;
  protected readonly pending: { raw: string; el: XmlElement; path: string; set: (v: string[]) => void }[] = [];

  constructor(protected readonly text: string) {}

  protected warn(el: XmlElement, path: string, message: string): void {
    this.issues.push(issueAt(this.text, 'warning', path, message, el.start, el.end));
  }

  protected error(el: XmlElement, path: string, message: string): void {
    this.issues.push(issueAt(this.text, 'error', path, message, el.start, el.end));
  }

  protected json(el: XmlElement, path: string, attr: string): Json | undefined {
    const raw = el.attrs[attr];
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as Json;
    } catch {
      this.error(el, path, `${attr} is not JSON`);
      return undefined;
    }
  }

  protected actions(parent: XmlElement, path: string): Json[] {
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

  protected one(list: Json[]): Json | undefined {
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

  protected keyOf(el: XmlElement, parentId: string | null): { key: string; xstateId: string | null } {
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

  protected target(raw: string): string | null {
    const info = this.byId.get(raw);
    if (!info) return null;
    if (info.xstateId !== null) return `#${info.xstateId}`;
    return `#${[this.rootId, ...info.keys].join('.')}`;
  }

  protected targets(el: XmlElement, path: string, raw: string): Json | undefined {
    const list: string[] = [];
    for (const id of raw.split(/\s+/).filter((s) => s !== '')) {
      const t = this.target(id);
      if (t === null) this.error(el, path, `unknown target "${id}": no state has that id; left out`);
      else list.push(t);
    }
    return list.length === 0 ? undefined : list.length === 1 ? list[0] : list;
  }

  /** Whether every target of a transition is the current state or inside it. */
  protected staysInside(raw: string | undefined): boolean {
    const ids = (raw ?? '').split(/\s+/).filter((x) => x !== '');
    return (
      ids.length > 0 &&
      ids.every((id) => {
        const keys = this.byId.get(id)?.keys;
        return keys !== undefined && this.current.every((k, i) => keys[i] === k);
      })
    );
  }

  protected transitionObject(el: XmlElement, path: string): JsonObject {
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
  protected eventName(e: string): string {
    if (!e.startsWith('done.state.')) return e;
    const t = this.target(e.slice('done.state.'.length));
    return t === null ? e : `xstate.done.state.${t.slice(1)}`;
  }

  /** The key of the child a state enters by default, when SCXML says it without actions. */
  protected defaultKey(el: XmlElement, keys: string[]): string | null {
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
  protected initial(
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
  protected entersByDefault(from: string[], to: string[]): boolean {
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
  protected defaultStep(el: XmlElement, path: string, keys: string[], target: string, actions: Json[]): string {
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
}
