import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { opsForEdit, readTrigger } from '../../src/lib/inspector/edits.ts';
import { readActions, readGuard, writeActions, writeGuard } from '../../src/lib/inspector/text.ts';
import {
  applyOps,
  counterIds,
  exportXState,
  importXState,
  integrityProblems,
  validateDefinition,
} from '../../src/lib/model/index.ts';
import { resolveOp } from '../../src/lib/model/resolve.ts';

const def = importXState(
  { id: 'm', initial: 'a', states: { a: { initial: 'x', states: { x: {}, y: {} }, on: { GO: 'b' } }, b: {} } },
  { ids: counterIds('m') },
);
const id = (key: string) => Object.values(def.states).find((s) => s.key === key)?.id as string;
const apply = (edit: Parameters<typeof opsForEdit>[1]) => {
  const r = opsForEdit(def, edit, counterIds('e'));
  if (!r.ok) throw new Error(r.error);
  return applyOps(def, r.ops);
};

describe('inspector edits as ops', () => {
  it('makes a compound state parallel (dropping its initial), adds history and final children', () => {
    let d = apply({ kind: 'state.type', id: id('a'), type: 'parallel' });
    expect(exportXState(d)).toMatchObject({ states: { a: { type: 'parallel' } } });
    expect(validateDefinition(d).filter((i) => i.severity === 'error')).toEqual([]);
    const hist = opsForEdit(d, { kind: 'state.addChild', parent: id('b'), type: 'history' }, counterIds('h'));
    const fin =
      hist.ok &&
      opsForEdit(applyOps(d, hist.ops), { kind: 'state.addChild', parent: def.root, type: 'final' }, counterIds('f'));
    expect(hist.ok && fin && fin.ok).toBe(true);
    if (hist.ok && fin && fin.ok) d = applyOps(applyOps(d, hist.ops), fin.ops);
    expect(exportXState(d)).toMatchObject({
      states: { b: { states: { hist: { type: 'history', history: 'shallow' } } }, done: { type: 'final' } },
    });
    expect(integrityProblems(d)).toEqual([]);
  });

  it('adds after and always transitions, sets guard, actions, targets, reenter, and reorders', () => {
    let d = apply({ kind: 'transition.add', source: id('b'), trigger: 'after', value: '1500', target: id('a') });
    const r = opsForEdit(
      d,
      { kind: 'transition.add', source: id('b'), trigger: 'always', value: '', target: null },
      counterIds('t'),
    );
    if (r.ok) d = applyOps(d, r.ops);
    expect(exportXState(d)).toMatchObject({ states: { b: { after: { 1500: 'a' }, always: {} } } });
    expect(readTrigger('after', 'slow')).toEqual({ ok: true, value: { after: 'slow' } });
    const go = Object.values(d.transitions).find((t) => t.event === 'GO')?.id as string;
    const second = opsForEdit(
      d,
      { kind: 'transition.add', source: id('a'), trigger: 'event', value: 'GO', target: id('a') },
      counterIds('s'),
    );
    if (second.ok) d = applyOps(d, second.ops);
    const edits = [
      { kind: 'transition.guard', id: go, text: 'ok {"n":1}' },
      { kind: 'transition.actions', id: go, text: 'log\nsave {"to":"db"}' },
      { kind: 'transition.targets', id: go, targets: 'a.y, b' },
      { kind: 'transition.reenter', id: go, reenter: true },
      { kind: 'transition.move', id: go, by: 1 },
    ] as const;
    for (const e of edits) {
      const res = opsForEdit(d, e);
      expect(res.ok).toBe(true);
      if (res.ok) d = applyOps(d, res.ops);
    }
    const on = (exportXState(d).states as Record<string, { on: Record<string, unknown> }>).a?.on.GO as unknown[];
    expect(on[1]).toMatchObject({
      guard: { type: 'ok', params: { n: 1 } },
      actions: ['log', { type: 'save', params: { to: 'db' } }],
      reenter: true,
    });
    // Moved down: the unguarded GO added second is now tried first.
    expect(on[0]).not.toHaveProperty('guard');
  });

  it('refuses text that does not read, in words', () => {
    expect(opsForEdit(def, { kind: 'machine.context', text: '{ nope' })).toMatchObject({ ok: false });
    expect(JSON.stringify(opsForEdit(def, { kind: 'machine.context', text: '{ nope' }))).toContain('not valid JSON');
    expect(
      opsForEdit(def, { kind: 'transition.guard', id: Object.keys(def.transitions)[0] as string, text: 'and(a,' }),
    ).toMatchObject({ ok: false });
    expect(
      opsForEdit(def, {
        kind: 'transition.targets',
        id: Object.keys(def.transitions)[0] as string,
        targets: 'nowhere',
      }),
    ).toMatchObject({ ok: false });
    expect(opsForEdit(def, { kind: 'state.rename', id: 'gone', key: 'x' })).toEqual({
      ok: false,
      error: 'that state is gone',
    });
  });

  it('guard and action text round-trips (property)', () => {
    const name = fc.stringMatching(/^[a-z][a-zA-Z0-9_.]{0,8}$/).filter((n) => !['and', 'or', 'not'].includes(n));
    const params = fc.option(
      fc.dictionary(
        fc.stringMatching(/^[a-z]{1,4}$/),
        fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.boolean()),
      ),
      { nil: undefined },
    );
    const leaf = fc
      .record({ type: name, params }, { requiredKeys: ['type'] })
      .map((g) => (g.params === undefined ? { type: g.type } : g));
    const guard = fc
      .letrec((tie) => ({
        g: fc.oneof(
          { depthSize: 'small' },
          leaf,
          fc.record({ type: fc.constantFrom('and', 'or'), list: fc.array(tie('g'), { minLength: 1, maxLength: 3 }) }),
          fc.record({ type: fc.constant('not'), list: fc.tuple(tie('g')) }),
        ),
      }))
      .g.map(function toRef(g: unknown): { type: string; params?: unknown } {
        const x = g as { type: string; params?: unknown; list?: unknown[] };
        if (!x.list) return x;
        return {
          type: x.type,
          params: {
            guards: x.list.map((y) => {
              const r = toRef(y);
              return r.params === undefined ? r.type : r;
            }),
          },
        };
      });
    fc.assert(
      fc.property(guard, fc.array(leaf, { maxLength: 4 }), (g, actions) => {
        expect(readGuard(writeGuard(g as never))).toEqual({ ok: true, value: g });
        expect(readActions(writeActions(actions as never))).toEqual({ ok: true, value: actions });
      }),
      { numRuns: 200 },
    );
  });

  it('the ops an edit makes land through resolveOp as they applied locally', () => {
    const r = opsForEdit(def, { kind: 'state.type', id: id('a'), type: 'parallel' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    let d = def;
    for (const op of r.ops) {
      const res = resolveOp(d, op);
      d = res.definition;
    }
    expect(d).toStrictEqual(applyOps(def, r.ops));
  });
});
