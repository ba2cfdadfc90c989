import ELK from 'elkjs/lib/elk.bundled.js';
import { describe, expect, it } from 'vitest';
import { importXState } from '../../../src/lib/model/index.ts';
import { estimateText, layoutDefinition } from '../../../src/lib/layout/index.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';
import { fixtures } from '../model/helpers.ts';
import { checkReadable } from './readable.ts';

/** Readability (readable.ts) on every fixture machine, generated charts and nesting corner cases. */
const elk = new ELK();

describe('readable layouts', () => {
  it('for every fixture machine', async () => {
    for (const f of fixtures()) {
      const def = importXState(f.config);
      checkReadable(def, await layoutDefinition(elk, def, estimateText));
    }
  });

  it('for generated charts of 50 and 200 states (parallel states, cousin jumps)', async () => {
    for (const size of [50, 200]) {
      const def = generateChart(size);
      expect(Object.values(def.states).some((s) => s.type === 'parallel')).toBe(true);
      checkReadable(def, await layoutDefinition(elk, def, estimateText));
    }
  });

  it('for transitions out of, into and across nested states, self-transitions and multiple targets', async () => {
    const def = importXState({
      id: 'nest',
      initial: 'a',
      on: { RESET: '.a' },
      states: {
        a: {
          initial: 'a1',
          on: { SELF: 'a', DEEP: '.a1.x' },
          states: {
            a1: {
              initial: 'x',
              states: { x: { on: { OUT: '#nest.b.b1', UP: '#nest.a' } }, y: { on: { LOOP: { actions: 'log' } } } },
            },
            a2: { on: { BACK: 'a1' } },
          },
        },
        b: { type: 'parallel', states: { b1: { on: { BOTH: { target: ['#nest.a.a2', '#nest.b.b2'] } } }, b2: {} } },
      },
    });
    checkReadable(def, await layoutDefinition(elk, def, estimateText));
  });
});
