import { stateOf } from '../model/tree.ts';
import type { ActionRef, MachineDefinition, Transition } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';

/** How transitions read on the diagram: `EVENT [guard] / action, action`. */
export function triggerText(def: MachineDefinition, t: Transition): string {
  const e = t.event;
  if (typeof e === 'string') return e;
  if ('always' in e) return 'always';
  if ('after' in e) return typeof e.after === 'number' ? `after ${e.after}ms` : `after ${e.after}`;
  if ('done' in e) return 'done';
  const source = stateOf(def, t.source);
  const inv = source.invoke.find((i) => i.uid === e.invoke);
  const name = inv?.id ?? inv?.src ?? 'invoke';
  return `${name}.${e.outcome}`;
}

const actionList = (actions: ActionRef[]): string => actions.map((a) => a.type).join(', ');

export function transitionLabel(def: MachineDefinition, t: Transition): string {
  let text = triggerText(def, t);
  if (t.guard) text += ` [${t.guard.type}]`;
  if (t.actions.length > 0) text += ` / ${actionList(t.actions)}`;
  return text;
}

/** The name a state shows: its key, or the machine's name for the root. */
export function stateTitle(def: MachineDefinition, id: string): string {
  const s = stateOf(def, id);
  return s.parent === null ? def.name || def.machineId || 'machine' : s.key;
}

/**
 * Width estimate from character classes, for Node (tests, bench) and as the fallback when
 * no canvas is available. Tuned for a 13px/12px system sans; the browser port measures.
 */
export const estimateText: TextMeasure = (text, kind) => {
  const size = kind === 'state' ? 13 : 12;
  let units = 0;
  for (const ch of text) {
    if (/[ilj.,:;'|![\]()]/.test(ch)) units += 0.3;
    else if (/[mwMW@]/.test(ch)) units += 0.85;
    else if (/[A-Z0-9]/.test(ch)) units += 0.65;
    else units += 0.55;
  }
  return Math.ceil(units * size);
};

/** About how many characters a transition label's line holds before it wraps. */
export const LABEL_WRAP = 24;

/**
 * A transition label's lines: broken at spaces so no line runs much past `max`
 * characters (a single longer word keeps its own line); the event stays on the first.
 */
export function wrapLabel(text: string, max = LABEL_WRAP): string[] {
  const words = text.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line !== '' && line.length + 1 + w.length > max) {
      lines.push(line);
      line = w;
    } else line = line === '' ? w : `${line} ${w}`;
  }
  lines.push(line);
  return lines;
}
