import { afterAll, describe, expect, it } from 'vitest';
import { exportFolders, vitest } from '../../setup/exported-vitest.ts';
import { EXAMPLE_NAMES, loadExample } from '../../../src/features/canvas/examples.ts';
import { exportXState, type JsonObject, type MachineDefinition } from '../../../src/lib/model/index.ts';
import {
  buildTestGraph,
  exportTestFile,
  shortestPaths,
  transitionCover,
  type ExportedTest,
} from '../../../src/lib/testing/index.ts';
import { def, payment } from './charts.ts';

/**
 * Proven in CI: the exported Vitest file, generated for every bundled example
 * machine, runs green with Vitest against the exported config in a folder of its own; a
 * deliberately broken config makes it fail.
 */

const { folderWith, cleanUp } = exportFolders();

function testsOf(definition: MachineDefinition): ExportedTest[] {
  const graph = buildTestGraph(definition, { maxStates: 3000 });
  const shortest = shortestPaths(definition, {}, graph).paths;
  const cover = transitionCover(definition, {}, graph).paths;
  return [...shortest, ...cover].map((p) => ({ name: `${p.id}: ${p.words}`, script: p }));
}

afterAll(cleanUp);

describe('export tests', () => {
  it('names guards as parameters and asserts every step', () => {
    const d = def(payment);
    const text = exportTestFile({ name: 'payment', definition: d, tests: testsOf(d) });
    expect(text).toContain('export const guards = {\n  "hasCard": () => assumed["hasCard"] === true,');
    expect(text).toContain('actor.send({"type":"PAY"});');
    expect(text).toContain('expect(activePaths(actor), "after step 2").toEqual(["paid"]);');
  });

  it('runs green with Vitest for every bundled example, and fails on a broken config', async () => {
    const files: Record<string, string> = {};
    let count = 0;
    for (const name of EXAMPLE_NAMES) {
      const definition = loadExample(name) as MachineDefinition;
      const tests = testsOf(definition);
      count += tests.length;
      files[`${name}.test.ts`] = exportTestFile({ name, definition, tests });
    }
    expect(count).toBeGreaterThan(EXAMPLE_NAMES.length * 3);
    const good = await vitest(await folderWith(files));
    expect(good.output).toMatch(new RegExp(`Test Files\\s+${EXAMPLE_NAMES.length} passed`));
    expect(good.code).toBe(0);

    // Broken: the payment chart's SUCCESS goes back to idle instead of paid.
    const d = def(payment);
    const config = exportXState(d);
    const broken = JSON.parse(JSON.stringify(config)) as JsonObject & { states: { paying: { on: JsonObject } } };
    broken.states.paying.on.SUCCESS = 'idle';
    const bad = await vitest(
      await folderWith({
        'payment.test.ts': exportTestFile({ name: 'payment', definition: d, tests: testsOf(d), config: broken }),
      }),
    );
    expect(bad.code).not.toBe(0);
    expect(bad.output).toContain('after step 2');
    expect(bad.output).toMatch(/Tests\s+\d+ failed/);
  }, 180_000);
});
