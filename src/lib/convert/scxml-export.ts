import { DEFAULT_MACHINE_ID } from '../model/import-targets.ts';
import { transitionsBySource } from '../model/tree.ts';
import type { ActionRef, Json, MachineDefinition, StateId, StateNode, Transition } from '../model/types.ts';
import { escapeXml } from './xml.ts';

/**
 * MachineDefinition -> SCXML (W3C, version 1.0). What SCXML says natively is written
 * natively: `<state>`, `<parallel>`, `<final>` with `<donedata>`, `<history>` with its
 * default transition, `initial`, `<transition event cond target type>`, eventless
 * transitions, `done.state.<id>`, `<invoke>`, and the context as `<datamodel>`. What it
 * cannot say is kept in the `cr:` namespace (executable content in another namespace is
 * allowed by the spec) so a Chartroom import reads it back exactly: named actions as
 * `<cr:action>`, `after` delays, invoke outcomes, guards with params, tags, descriptions,
 * meta. A state's SCXML id is its explicit id, else its key path joined by dots.
 */

export const CR_NS = 'https://chartroom.dev/scxml';
export const SCXML_NS = 'http://www.w3.org/2005/07/scxml';

const json = (v: Json): string => JSON.stringify(v);

/** An SCXML id (an XML NCName): letters, digits, `_`, `-`, `.`, not starting with a digit, `-` or `.`. */
export function safeId(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(id) ? id : `_${id}`;
}

/**
 * An event name as one SCXML event descriptor (the attribute is a space-separated list):
 * whitespace becomes `_`; the original name is kept in `cr:event`.
 */
export function safeEvent(name: string): string {
  return name.replace(/\s+/g, '_');
}

/**
 * The SCXML ids of every state (root included), by state id: the explicit id, else the key
 * path joined by dots (`natural`), made a valid id and unique (`ids`) when it is not one.
 */
export function scxmlIds(def: MachineDefinition): { ids: Map<StateId, string>; natural: Map<StateId, string> } {
  const ids = new Map<StateId, string>();
  const natural = new Map<StateId, string>();
  const walk = (id: StateId, parentPath: string | null): void => {
    const s = def.states[id];
    if (!s) return;
    const path = s.parent === null ? '' : parentPath === '' || parentPath === null ? s.key : `${parentPath}.${s.key}`;
    natural.set(id, s.parent === null ? (def.machineId ?? DEFAULT_MACHINE_ID) : (s.xstateId ?? path));
    for (const c of s.children) walk(c, s.parent === null ? '' : (s.xstateId ?? path));
  };
  walk(def.root, null);
  // Names that are valid ids keep them; the others take a valid id no state has.
  const valid = (name: string): boolean => safeId(name) === name;
  const taken = new Set([...natural].filter(([, name]) => valid(name)).map(([, name]) => name));
  for (const [id, name] of natural) {
    if (valid(name)) {
      ids.set(id, name);
      continue;
    }
    let safe = safeId(name);
    for (let n = 2; taken.has(safe); n++) safe = `${safeId(name)}_${n}`;
    taken.add(safe);
    ids.set(id, safe);
  }
  return { ids, natural };
}

class Writer {
  private readonly lines: string[] = [];
  private readonly ids: Map<StateId, string>;
  private readonly natural: Map<StateId, string>;
  private readonly bySource: Map<StateId, Transition[]>;
  constructor(private readonly def: MachineDefinition) {
    ({ ids: this.ids, natural: this.natural } = scxmlIds(def));
    this.bySource = transitionsBySource(def);
  }

  private id(s: StateId): string {
    return this.ids.get(s) ?? s;
  }

  private attrs(list: [string, string | null | undefined][]): string {
    return list
      .filter((a): a is [string, string] => a[1] !== null && a[1] !== undefined)
      .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
      .join('');
  }

  private emit(indent: string, open: string, attrs: string, body: (inner: string) => void): void {
    const at = this.lines.length;
    this.lines.push(`${indent}<${open}${attrs}>`);
    body(`${indent}  `);
    if (this.lines.length === at + 1) this.lines[at] = `${indent}<${open}${attrs}/>`;
    else this.lines.push(`${indent}</${open}>`);
  }

  private actions(indent: string, list: ActionRef[]): void {
    for (const a of list)
      this.lines.push(
        `${indent}<cr:action${this.attrs([
          ['type', a.type],
          ['params', a.params === undefined ? null : json(a.params)],
        ])}/>`,
      );
  }

  private extras(s: { description: string | null; meta: Json | null }): [string, string | null][] {
    return [
      ['cr:description', s.description],
      ['cr:meta', s.meta === null ? null : json(s.meta)],
    ];
  }

  private transition(indent: string, t: Transition, node: StateNode): void {
    const e = t.event;
    let event: string | null = null;
    const extra: [string, string | null][] = [];
    if (typeof e === 'string') {
      event = safeEvent(e);
      if (event !== e) extra.push(['cr:event', e]);
    } else if ('always' in e) {
      // A history state's eventless <transition> is its default; mark a real one (an invalid chart, still kept).
      if (node.type === 'history') extra.push(['cr:always', 'true']);
    } else if ('after' in e) {
      event = `xstate.after.${e.after}.${this.id(node.id)}`;
      extra.push(['cr:after', String(e.after)]);
    } else if ('done' in e) event = `done.state.${this.id(node.id)}`;
    else if ('invoke' in e) {
      const index = node.invoke.findIndex((i) => i.uid === e.invoke);
      const inv = node.invoke[index];
      const name = inv?.id ?? `${this.id(node.id)}:invoke[${index}]`;
      event = safeEvent(
        `${e.outcome === 'done' ? 'done' : e.outcome === 'error' ? 'error' : 'snapshot'}.invoke.${name}`,
      );
      extra.push(['cr:invoke', String(index)], ['cr:outcome', e.outcome]);
    }
    const simpleGuard = t.guard !== null && t.guard.params === undefined;
    const attrs = this.attrs([
      ['event', event],
      ['cond', t.guard === null ? null : t.guard.type],
      ['cr:guard', t.guard !== null && !simpleGuard ? json(t.guard as unknown as Json) : null],
      ['target', t.targets.length > 0 ? t.targets.map((x) => this.id(x)).join(' ') : null],
      ['type', t.reenter ? 'external' : t.targets.length > 0 ? 'internal' : null],
      ...extra,
      ...this.extras(t),
    ]);
    this.emit(indent, 'transition', attrs, (inner) => this.actions(inner, t.actions));
  }

  state(id: StateId, indent: string): void {
    const s = this.def.states[id];
    if (!s) return;
    const tag =
      s.type === 'parallel' ? 'parallel' : s.type === 'final' ? 'final' : s.type === 'history' ? 'history' : 'state';
    const implied = s.children.length > 0 ? 'compound' : 'atomic';
    // An id changed to be valid SCXML keeps the name it stands for: the key (path ids) or the explicit id.
    const renamed = this.id(id) !== this.natural.get(id);
    const attrs = this.attrs([
      ['id', this.id(id)],
      ['cr:key', s.parent !== null && s.xstateId !== null ? s.key : null],
      ['cr:id', renamed && s.xstateId !== null ? s.xstateId : null],
      ['cr:pathkey', renamed && s.xstateId === null ? s.key : null],
      ['type', s.type === 'history' ? (s.history ?? 'shallow') : null],
      ['cr:type', tag === 'state' && s.type !== implied ? s.type : null],
      ['initial', s.initial === null ? null : this.id(s.initial)],
      // SCXML would start a state without initial in its first child; say that this one has none.
      ['cr:initial', s.initial === null && s.children.length > 0 && tag === 'state' ? 'none' : null],
      ['cr:tags', s.tags.length > 0 ? json(s.tags) : null],
      ...this.extras(s),
    ]);
    this.emit(indent, tag, attrs, (inner) => this.body(s, inner));
  }

  private body(s: StateNode, inner: string): void {
    if (s.type === 'history' && s.historyTarget !== null && s.parent !== null)
      this.lines.push(`${inner}<transition target="${escapeXml(this.id(s.historyTarget))}"/>`);
    if (s.entry.length > 0) this.emit(inner, 'onentry', '', (i) => this.actions(i, s.entry));
    if (s.exit.length > 0) this.emit(inner, 'onexit', '', (i) => this.actions(i, s.exit));
    s.invoke.forEach((inv) => {
      this.lines.push(
        `${inner}<invoke${this.attrs([
          ['src', inv.src],
          ['id', inv.id],
          ['cr:systemId', inv.systemId],
          ['cr:input', inv.input === undefined ? null : json(inv.input)],
        ])}/>`,
      );
    });
    for (const t of this.bySource.get(s.id) ?? []) this.transition(inner, t, s);
    if (s.output !== null) {
      const out = s.output.value;
      this.emit(inner, 'donedata', '', (i) => this.lines.push(`${i}<content expr="${escapeXml(json(out))}"/>`));
    }
    for (const c of s.children) this.state(c, inner);
  }

  document(): string {
    const def = this.def;
    const root = def.states[def.root];
    if (!root) throw new Error('definition is inconsistent: no root state');
    // SCXML's <scxml> holds only states; a root with its own transitions, actions,
    // invocations or type is written as one wrapping state marked cr:root.
    const implied = root.children.length > 0 ? 'compound' : 'atomic';
    const wrap =
      root.type !== implied ||
      (this.bySource.get(root.id) ?? []).length > 0 ||
      root.entry.length + root.exit.length + root.invoke.length + root.tags.length > 0 ||
      root.description !== null ||
      root.meta !== null ||
      root.output !== null;
    this.lines.push('<?xml version="1.0" encoding="UTF-8"?>');
    const attrs = this.attrs([
      ['xmlns', SCXML_NS],
      ['xmlns:cr', CR_NS],
      ['version', '1.0'],
      ['datamodel', 'ecmascript'],
      ['name', def.machineId],
      ['cr:name', def.name],
      ['initial', wrap ? this.id(root.id) : root.initial === null ? null : this.id(root.initial)],
      ['cr:initial', !wrap && root.initial === null && root.children.length > 0 ? 'none' : null],
    ]);
    this.emit('', 'scxml', attrs, (inner) => {
      if (def.context !== null) {
        const context = def.context;
        this.emit(inner, 'datamodel', '', (i) => {
          for (const [k, v] of Object.entries(context))
            this.lines.push(`${i}<data id="${escapeXml(k)}" expr="${escapeXml(json(v))}"/>`);
        });
      }
      if (wrap) {
        const tag = root.type === 'parallel' ? 'parallel' : 'state';
        const rootAttrs = this.attrs([
          ['id', this.id(root.id)],
          ['cr:root', 'true'],
          ['cr:type', tag === 'state' && root.type !== implied ? root.type : null],
          ['cr:history', root.type === 'history' ? (root.history ?? 'shallow') : null],
          ['initial', root.initial === null ? null : this.id(root.initial)],
          ['cr:initial', root.initial === null && root.children.length > 0 && tag === 'state' ? 'none' : null],
          ['cr:tags', root.tags.length > 0 ? json(root.tags) : null],
          ...this.extras(root),
        ]);
        this.emit(inner, tag, rootAttrs, (i) => this.body(root, i));
      } else for (const c of root.children) this.state(c, inner);
    });
    return `${this.lines.join('\n')}\n`;
  }
}

export function exportScxml(def: MachineDefinition): string {
  return new Writer(def).document();
}
