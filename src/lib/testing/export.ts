import { exportXState } from '../model/export.ts';
import type { JsonObject, MachineDefinition } from '../model/types.ts';
import { definitionNames, NAMED_DELAY_MS } from '../simulation/build.ts';
import type { TestScript } from './types.ts';
import { eventWords } from './words.ts';

/**
 * Export tests: a Vitest file in TypeScript that walks each saved test or generated path
 * with `createActor` over the machine's exported config, asserting the active states
 * after every step. Guards named in the chart are the file's parameters: `guards` at the
 * top answers each step's assumed outcome until the user puts their implementation in.
 * Delayed steps advance Vitest's fake timers to the next timer, as the simulation does.
 */

export interface ExportedTest {
  name: string;
  script: TestScript;
  context?: JsonObject | null;
}

export interface ExportInput {
  /** The machine's name, for the describe block. */
  name: string;
  definition: MachineDefinition;
  tests: readonly ExportedTest[];
  /** The config under test; the definition's export unless given (a test may break it on purpose). */
  config?: JsonObject;
}

const lit = (v: unknown) => JSON.stringify(v);
const sorted = (paths: readonly string[]) => [...paths].sort();

function testBlock(t: ExportedTest): string {
  const lines: string[] = [];
  lines.push(`  it(${lit(t.name)}, () => {`);
  lines.push(`    const actor = start(${t.context ? lit(t.context) : 'null'});`);
  lines.push(`    expect(activePaths(actor)).toEqual(${lit(sorted(t.script.start))});`);
  t.script.steps.forEach((s, i) => {
    lines.push(`    // step ${i + 1}: ${eventWords(s).replace(/\n/g, ' ')}`);
    lines.push(`    assumed = ${lit(s.guards)};`);
    if (s.kind === 'time') lines.push(`    vi.advanceTimersToNextTimer();`);
    else lines.push(`    actor.send(${lit({ ...s.payload, type: s.type })});`);
    lines.push(`    expect(activePaths(actor), ${lit(`after step ${i + 1}`)}).toEqual(${lit(sorted(s.expect))});`);
    if (s.expectContext) lines.push(`    expect(actor.getSnapshot().context).toMatchObject(${lit(s.expectContext)});`);
  });
  lines.push(`    actor.stop();`);
  lines.push(`  });`);
  return lines.join('\n');
}

export function exportTestFile(input: ExportInput): string {
  const config = input.config ?? exportXState(input.definition);
  const names = definitionNames(input.definition);
  const guardLines = names.guards.map((g) => `  ${lit(g)}: () => assumed[${lit(g)}] === true,`);
  const actionLines = names.actions.map((a) => `  ${lit(a)}: () => {},`);
  const actorLines = names.actors.map((a) => `  ${lit(a)}: fromCallback(() => undefined),`);
  const delayLines = names.delays.map((d) => `  ${lit(d)}: ${NAMED_DELAY_MS},`);
  return `// Tests for ${lit(input.name)}, exported by Chartroom. Run: npx vitest run <this file>
// Each test walks a saved test or a generated path with createActor over the machine's
// config and asserts the active states after every step.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, createMachine, fromCallback, type AnyActor, type StateValue } from 'xstate';

/** The machine's exported config: replace it with an import of yours to test your own. */
export const config = ${JSON.stringify(config, null, 2)};

/** The guard outcomes the current step assumes. */
let assumed: Record<string, boolean> = {};

/**
 * Parameters: the guards named in the chart. Each answers the outcome the step assumes;
 * put your implementation in (it must agree with the assumptions for the tests to pass).
 */
export const guards = {
${guardLines.join('\n')}
};

/** Actions and invoked actors are named in the chart; here they do nothing. */
const actions = {
${actionLines.join('\n')}
};
const actors = {
${actorLines.join('\n')}
};
const delays = {
${delayLines.join('\n')}
};

const machine = createMachine(config as Parameters<typeof createMachine>[0]).provide({
  guards,
  actions,
  actors,
  delays,
} as never);

function start(context: Record<string, unknown> | null): AnyActor {
  assumed = {};
  const m = context === null ? machine : createMachine({ ...config, context } as Parameters<typeof createMachine>[0]).provide({ guards, actions, actors, delays } as never);
  return createActor(m).start();
}

/** Dot paths of every active state, sorted. */
function activePaths(actor: AnyActor): string[] {
  const out: string[] = [];
  const walk = (v: StateValue, prefix: string): void => {
    if (typeof v === 'string') {
      out.push(prefix === '' ? v : \`\${prefix}.\${v}\`);
      return;
    }
    for (const [key, child] of Object.entries(v)) {
      const path = prefix === '' ? key : \`\${prefix}.\${key}\`;
      out.push(path);
      if (child !== undefined) walk(child, path);
    }
  };
  walk(actor.getSnapshot().value as StateValue, '');
  return out.sort();
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe(${lit(input.name)}, () => {
${input.tests.map(testBlock).join('\n\n')}
});
`;
}
