import { describe, expect, it } from 'vitest';
import { diffToOps } from '../../../src/lib/canvas-ops/diff.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { applyOp, exportXState, importXState, type MachineDefinition, type Op } from '../../../src/lib/model/index.ts';
import { foldOps } from '../../../src/lib/timeline/index.ts';

/** The server's fold, op by op: what foldOps must equal whichever way it goes. */
function oneByOne(def: MachineDefinition, ops: readonly Op[]): MachineDefinition {
  let current = def;
  for (const op of ops) {
    try {
      current = applyOp(current, op);
    } catch {
      // skipped
    }
  }
  return current;
}

describe('foldOps (the timeline folds every batch it summarises)', () => {
  const start = importXState({ id: 'start', initial: 'idle', states: { idle: {} } }, { name: 'start' });
  const paste = diffToOps(start, importXState(exportXState(generateChart(200)), { name: 'pasted' }));

  it('gives the op-by-op fold for a pasted chart, whose ops all apply', () => {
    expect(paste.length).toBeGreaterThan(200);
    expect(foldOps(start, paste)).toEqual(oneByOne(start, paste));
  });

  it('skips an op that no longer applies and applies the rest, as the server does', () => {
    const broken: Op[] = [
      ...paste.slice(0, 50),
      { type: 'state.rename', id: 'no-such-state', key: 'x' },
      ...paste.slice(50),
    ];
    const folded = foldOps(start, broken);
    expect(folded).toEqual(oneByOne(start, broken));
    expect(folded).toEqual(oneByOne(start, paste));
  });

  it('leaves the definition it was given untouched', () => {
    const before = JSON.stringify(start);
    foldOps(start, [...paste, { type: 'state.rename', id: 'no-such-state', key: 'x' }]);
    expect(JSON.stringify(start)).toBe(before);
  });
});
