import ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyOp,
  applyOps,
  counterIds,
  OpError,
  type MachineDefinition,
  type Op,
} from '../../../src/lib/model/index.ts';
import {
  estimateText,
  hintsFrom,
  layoutDefinition,
  LayoutCache,
  type ElkLike,
  type Layout,
} from '../../../src/lib/layout/index.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { baseDefinition, intent, toOp } from '../model/arbitraries.ts';
import { checkReadable } from './readable.ts';

/**
 * The worker's cache of compound insides (src/lib/layout/cache.ts): a layout with the
 * cache equals the layout without it, after any edit; a small edit hands ELK only the
 * compounds on the edited path; what it did not touch stays exactly where it was.
 */
const elk = new ELK();

/** Counts the compounds ELK really laid out (graphs with children) per run. */
class CountingElk implements ElkLike {
  graphs = 0;
  async layout(graph: ElkNode): Promise<ElkNode> {
    const count = (n: ElkNode): number =>
      ((n.children?.length ?? 0) > 0 ? 1 : 0) + (n.children ?? []).reduce((s, c) => s + count(c), 0);
    this.graphs = count(graph) - 1;
    return elk.layout(graph);
  }
}

const compounds = (def: MachineDefinition): number =>
  Object.values(def.states).filter((s) => s.children.length > 0).length;

const edits = (def: MachineDefinition): [string, Op[]][] => {
  const leaf = Object.values(def.states).find(
    (s) => s.children.length === 0 && s.parent !== def.root && s.key.length > 6,
  );
  const t = Object.values(def.transitions)[5];
  if (!leaf?.parent || !t) throw new Error('fixture');
  return [
    ['rename that fits', [{ type: 'state.rename', id: leaf.id, key: 'short' }]],
    ['rename that grows', [{ type: 'state.rename', id: leaf.id, key: 'a much much longer state name' }]],
    [
      'add a leaf',
      [{ type: 'state.add', id: 's_new', parent: leaf.parent, key: 'added', stateType: 'atomic', index: null }],
    ],
    [
      'add a cross-border transition',
      [{ type: 'transition.add', transition: { ...t, id: 't_new', event: 'ACROSS', targets: ['s_33'], order: 999 } }],
    ],
    ['delete a transition', [{ type: 'transition.delete', id: t.id }]],
  ];
};

describe('layout cache', () => {
  it('gives exactly the uncached layout, cold, repeated and after each kind of edit', async () => {
    const def = generateChart(80);
    const cache = new LayoutCache();
    const plain = await layoutDefinition(elk, def, estimateText);
    const cold = await layoutDefinition(elk, def, estimateText, null, cache);
    expect(cold).toEqual(plain);
    const again = await layoutDefinition(elk, def, estimateText, hintsFrom(cold), cache);
    expect(again).toEqual(plain);
    for (const [name, ops] of edits(def)) {
      const edited = applyOps(def, ops);
      const withCache = await layoutDefinition(elk, edited, estimateText, hintsFrom(again), cache);
      const without = await layoutDefinition(elk, edited, estimateText, hintsFrom(again));
      expect(withCache, name).toEqual(without);
    }
  });

  it('re-lays out only the compounds on the edited path, and nothing at all when nothing changed', async () => {
    const def = generateChart(200);
    const cache = new LayoutCache();
    const counting = new CountingElk();
    const first = await layoutDefinition(counting, def, estimateText, null, cache);
    expect(counting.graphs).toBe(compounds(def));
    expect(cache.misses).toBe(compounds(def));

    await layoutDefinition(counting, def, estimateText, hintsFrom(first), cache);
    expect(counting.graphs).toBe(0);
    expect(cache.hits).toBe(1);

    const [, ops] = edits(def).find(([name]) => name === 'add a leaf') ?? ['', []];
    const edited = applyOps(def, ops);
    await layoutDefinition(counting, edited, estimateText, hintsFrom(first), cache);
    const op = ops[0];
    if (op?.type !== 'state.add') throw new Error('fixture');
    let depth = 0;
    for (let s: string | null = op.parent; s !== null; s = edited.states[s]?.parent ?? null) depth++;
    expect(counting.graphs).toBe(depth);
  });

  it('keeps every state outside the edited path exactly where it was relative to its parent', async () => {
    const def = generateChart(200);
    const cache = new LayoutCache();
    const before = await layoutDefinition(elk, def, estimateText, null, cache);
    const added = applyOps(def, [
      { type: 'state.add', id: 's_new', parent: 's_12', key: 'added', stateType: 'atomic', index: null },
    ]);
    const after = await layoutDefinition(elk, added, estimateText, hintsFrom(before), cache);
    const onPath = new Set<string>();
    for (let s: string | null = 's_12'; s !== null; s = def.states[s]?.parent ?? null) onPath.add(s);
    const rel = (l: Layout, id: string): string => {
      const n = l.nodes[id];
      const p = n?.parent ? l.nodes[n.parent] : undefined;
      return `${(n?.x ?? 0) - (p?.x ?? 0)},${(n?.y ?? 0) - (p?.y ?? 0)},${n?.width},${n?.height}`;
    };
    const insideUntouched = Object.values(def.states).filter((s) => s.parent !== null && !onPath.has(s.parent));
    expect(insideUntouched.length).toBeGreaterThan(150);
    for (const s of insideUntouched) expect(rel(after, s.id), s.id).toBe(rel(before, s.id));
  });

  it('forgets compounds that a whole run did not use', async () => {
    const cache = new LayoutCache();
    await layoutDefinition(elk, generateChart(50), estimateText, null, cache);
    const small = cache.size;
    await layoutDefinition(elk, generateChart(20), estimateText, null, cache);
    await layoutDefinition(elk, generateChart(20), estimateText, null, cache);
    expect(small).toBeGreaterThan(cache.size);
    expect(cache.size).toBe(compounds(generateChart(20)));
  });
});

describe('layout cache under random edits', () => {
  it('equals the uncached layout after every step, and every step is readable', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(intent, { minLength: 6, maxLength: 40 }), async (intents) => {
        const fresh = counterIds('r');
        const cache = new LayoutCache();
        let def = baseDefinition();
        let previous: Layout | null = null;
        for (const [i, it] of intents.entries()) {
          const op = toOp(def, it, fresh);
          if (op === null) continue;
          try {
            def = applyOp(def, op);
          } catch (err) {
            if (!(err instanceof OpError)) throw err;
          }
          if (i % 3 !== 2 && i !== intents.length - 1) continue;
          const hints = previous ? hintsFrom(previous) : null;
          const withCache = await layoutDefinition(elk, def, estimateText, hints, cache);
          expect(withCache).toEqual(await layoutDefinition(elk, def, estimateText, hints));
          checkReadable(def, withCache);
          previous = withCache;
        }
      }),
      { numRuns: 25 },
    );
  });
});
