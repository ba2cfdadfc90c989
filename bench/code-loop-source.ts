/**
 * A TypeScript machine file as a team writes one, of about `size` states: setup() with
 * types, action and guard implementations, compound states nested two levels, entry and
 * exit actions, guarded transitions with inline assigns, comments, and code around the
 * machine. Deterministic, so runs compare.
 */
export function machineSource(size: number): string {
  const groups = Math.max(1, Math.round(Math.sqrt(size)));
  const perGroup = Math.max(1, Math.ceil((size - 1 - groups) / groups));
  const lines: string[] = [
    "import { assign, setup } from 'xstate';",
    "import { log, track } from './telemetry';",
    '',
    '// The order flow: each stage a compound state, each step within it a leaf.',
    'export const orderMachine = setup({',
    '  types: {',
    '    context: {} as { count: number; retries: number; note: string },',
    "    events: {} as { type: 'NEXT' } | { type: 'BACK' } | { type: 'RETRY' } | { type: 'SKIP' } | { type: 'CANCEL' },",
    '  },',
    '  actions: {',
  ];
  for (let g = 0; g < groups; g++) lines.push(`    enterStage${g}: () => track('stage${g}'),`);
  lines.push('    logStep: ({ context }) => log(context.count),', '  },', '  guards: {');
  for (let g = 0; g < groups; g++) lines.push(`    canLeave${g}: ({ context }) => context.count > ${g},`);
  lines.push(
    '    hasRetries: ({ context }) => context.retries < 3,',
    '  },',
    '}).createMachine({',
    "  id: 'order',",
    "  context: { count: 0, retries: 0, note: '' },",
    "  initial: 'stage0',",
    '  states: {',
  );
  for (let g = 0; g < groups; g++) {
    const next = g + 1 < groups ? `stage${g + 1}` : 'done';
    lines.push(
      `    // Stage ${g}: ${perGroup} steps, left when its guard allows.`,
      `    stage${g}: {`,
      "      initial: 'step0',",
      `      entry: ['enterStage${g}'],`,
      '      on: {',
      `        CANCEL: { target: '#order.done', actions: assign({ note: 'cancelled in ${g}' }) },`,
      '      },',
      '      states: {',
    );
    for (let s = 0; s < perGroup; s++) {
      const last = s === perGroup - 1;
      lines.push(`        step${s}: {`);
      if (s % 3 === 0) lines.push("          entry: ['logStep'],");
      lines.push('          on: {');
      lines.push(
        last
          ? `            NEXT: { target: '#order.${next}', guard: 'canLeave${g}' }, // leave the stage`
          : `            NEXT: { target: 'step${s + 1}', actions: assign({ count: ({ context }) => context.count + 1 }) },`,
      );
      if (s > 0) lines.push(`            BACK: 'step${s - 1}',`);
      if (s % 4 === 1) lines.push(`            RETRY: { target: 'step${s}', guard: 'hasRetries', reenter: true },`);
      if (s % 5 === 2) lines.push(`            /* a shortcut */ SKIP: 'step${Math.min(perGroup - 1, s + 2)}',`);
      lines.push('          },', '        },');
    }
    lines.push('      },', '    },');
  }
  lines.push(
    "    done: { type: 'final' },",
    '  },',
    '});',
    '',
    'export function describeOrder(count: number): string {',
    '  return `order at ${count}`; // untouched by write-back',
    '}',
    '',
  );
  return lines.join('\n');
}
