import { transitionsBySource } from '../model/tree.ts';
import type { GuardRef, MachineDefinition, StateId, Transition } from '../model/types.ts';
import { guardOperands } from './catalogue.ts';

/**
 * MachineDefinition -> Mermaid `stateDiagram-v2`. Each state gets a generated identifier
 * (`s0`, `s1`, ...: Mermaid ids cannot hold arbitrary keys) and its key as the label;
 * compound states are `state ... { }` blocks with `[*] -->` for the initial child, the
 * regions of a parallel state are separated by `--`, final states lead to `[*]`, history
 * states are labelled H or H*. Edges carry the trigger and `[guard]`; a targetless
 * transition loops on its source. The machine root's own transitions have no box to start
 * from in Mermaid and are left out.
 */

function label(text: string): string {
  // Mermaid labels end at a newline and treat ':' '#' ';' specially in places; keep them readable and safe.
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/"/g, "'")
    .replace(/[;#]/g, ' ');
}

function guardText(g: GuardRef): string {
  const operands = guardOperands(g);
  if (operands === null) return g.type;
  if (g.type === 'not') return `not ${operands.map(guardText).join(' ')}`;
  return operands.map(guardText).join(` ${g.type} `);
}

export function exportMermaid(def: MachineDefinition): string {
  const ids = new Map<StateId, string>();
  let n = 0;
  for (const id of Object.keys(def.states)) ids.set(id, `s${n++}`);
  const bySource = transitionsBySource(def);
  const lines = ['stateDiagram-v2'];
  const edges: string[] = [];
  const name = (id: StateId): string => ids.get(id) ?? 's';

  const trigger = (t: Transition): string => {
    const e = t.event;
    const base =
      typeof e === 'string'
        ? e
        : 'always' in e
          ? 'always'
          : 'after' in e
            ? `after ${typeof e.after === 'number' ? `${e.after}ms` : e.after}`
            : 'done' in e
              ? 'done'
              : `invoke ${e.outcome}`;
    return label(t.guard === null ? base : `${base} [${guardText(t.guard)}]`);
  };

  const walk = (id: StateId, indent: string): void => {
    const s = def.states[id];
    if (!s) return;
    const me = name(id);
    if (s.parent !== null) {
      const text = s.type === 'history' ? `${s.key} (${s.history === 'deep' ? 'H*' : 'H'})` : s.key;
      lines.push(`${indent}state "${label(text)}" as ${me}`);
    }
    if (s.children.length > 0) {
      const inner = s.parent === null ? indent : `${indent}  `;
      if (s.parent !== null) lines.push(`${indent}state ${me} {`);
      if (s.initial !== null) lines.push(`${inner}[*] --> ${name(s.initial)}`);
      s.children.forEach((c, i) => {
        if (s.type === 'parallel' && i > 0) lines.push(`${inner}--`);
        walk(c, inner);
      });
      if (s.parent !== null) lines.push(`${indent}}`);
    }
    if (s.type === 'final') edges.push(`${me} --> [*]`);
    for (const t of bySource.get(id) ?? []) {
      const to = t.targets.length > 0 ? t.targets : [id];
      if (s.parent === null) continue;
      for (const target of to) edges.push(`${me} --> ${name(target)} : ${trigger(t)}`);
    }
  };
  walk(def.root, '  ');
  for (const e of edges) lines.push(`  ${e}`);
  return `${lines.join('\n')}\n`;
}
