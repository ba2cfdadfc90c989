import { describe, expect, it } from 'vitest';
import { copyState, pasteOps, type StateClip } from '../../src/lib/inspector/clipboard.ts';
import { opsForEdit } from '../../src/lib/inspector/edits.ts';
import { applyOps, counterIds, exportXState, importXState, validateDefinition } from '../../src/lib/model/index.ts';

const source = importXState(
  {
    id: 'm',
    initial: 'a',
    states: {
      a: {
        initial: 'x',
        invoke: { src: 'fetcher', id: 'f', onDone: 'a.y', onError: 'b' },
        states: { x: { on: { NEXT: 'y', OUT: '#m.b' } }, y: {}, h: { type: 'history', target: 'y' } },
      },
      b: {},
    },
  },
  { ids: counterIds('s') },
);
const idOf = (def: typeof source, key: string) => Object.values(def.states).find((s) => s.key === key)?.id as string;
const errors = (def: typeof source) => validateDefinition(def).filter((i) => i.severity === 'error');

describe('copy and paste of states with their subtree', () => {
  it('pastes within the machine as a sibling copy with new ids and a unique key', () => {
    const clip = copyState(source, idOf(source, 'a'));
    expect(clip?.states.map((s) => s.key)).toEqual(['a', 'x', 'y', 'h']);
    // NEXT (x -> y) stays inside; OUT (x -> b) and onError (-> b) leave the subtree and are not copied.
    expect(clip?.transitions.map((t) => t.event)).toHaveLength(2);
    const pasted = applyOps(source, pasteOps(source, clip!, source.root, counterIds('p')));
    expect(errors(pasted)).toEqual([]);
    const config = exportXState(pasted) as { states: Record<string, { states: object; on?: object }> };
    expect(Object.keys(config.states)).toEqual(['a', 'b', 'a-2']);
    expect(Object.keys(config.states['a-2']!.states)).toEqual(['x', 'y', 'h']);
    expect(config.states['a-2']).toMatchObject({
      initial: 'x',
      invoke: { src: 'fetcher', id: 'f', onDone: '.y' },
      states: { x: { on: { NEXT: 'y' } }, h: { type: 'history', target: 'y' } },
    });
    // The original is untouched and no id is shared.
    const before = new Set(Object.keys(source.states));
    const added = Object.keys(pasted.states).filter((s) => !before.has(s));
    expect(added).toHaveLength(4);
    const original = exportXState(source) as { states: Record<string, unknown> };
    expect(config.states.a).toEqual(original.states.a);
  });

  it('pastes into another machine, under an atomic state that becomes compound with it initial', () => {
    const other = importXState({ id: 'o', initial: 'only', states: { only: {} } }, { ids: counterIds('o') });
    const clip = copyState(source, idOf(source, 'a'))!;
    const pasted = applyOps(other, pasteOps(other, clip, idOf(other, 'only'), counterIds('q')));
    expect(errors(pasted)).toEqual([]);
    expect(exportXState(pasted)).toMatchObject({
      states: {
        only: { initial: 'a', states: { a: { initial: 'x', states: { x: { on: { NEXT: 'y' } } } } } },
      },
    });
  });

  it('copies nothing for the root or a missing state', () => {
    expect(copyState(source, source.root)).toBeNull();
    expect(copyState(source, 'nope')).toBeNull();
  });
});

describe('the Inspector paste edit', () => {
  it('pastes a clip as ops, and refuses a history or final parent, a stale parent or a malformed clip in words', () => {
    const clip = copyState(source, idOf(source, 'x'))!;
    const pasted = opsForEdit(source, { kind: 'state.paste', parent: idOf(source, 'b'), clip }, counterIds('e'));
    expect(pasted.ok).toBe(true);
    if (pasted.ok)
      expect(exportXState(applyOps(source, pasted.ops))).toMatchObject({ states: { b: { states: { x: {} } } } });
    const refused = (parent: string, c: StateClip) => {
      const r = opsForEdit(source, { kind: 'state.paste', parent, clip: c });
      return r.ok ? null : r.error;
    };
    expect(refused(idOf(source, 'h'), clip)).toBe('a history state cannot hold other states');
    expect(refused('gone', clip)).toBe('that state is gone');
    expect(refused(source.root, { states: [], transitions: [] })).toBe('nothing to paste: copy a state first');
    expect(refused(source.root, { states: [{ id: 'z' } as never], transitions: [] })).toMatch(
      /^the copied state cannot be pasted here: /,
    );
  });
});
