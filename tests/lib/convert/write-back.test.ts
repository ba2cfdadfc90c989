import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importTypeScript } from '../../../src/lib/convert/ts-import.ts';
import { writeBackTypeScript } from '../../../src/lib/convert/ts-write-back.ts';
import { applyOp, applyOps, counterIds, exportXState, type MachineDefinition } from '../../../src/lib/model/index.ts';
import { intent, opsFrom } from '../model/arbitraries.ts';
import { TOGGLE } from './toggle-source.ts';

function imported(text: string): MachineDefinition {
  const read = importTypeScript(text, { ids: counterIds('src') });
  expect(read.definition).not.toBeNull();
  return read.definition!;
}

const stateId = (def: MachineDefinition, key: string) => Object.values(def.states).find((s) => s.key === key)!.id;
const transitionId = (def: MachineDefinition, event: string) =>
  Object.values(def.transitions).find((t) => t.event === event)!.id;

function writeBack(text: string, def: MachineDefinition): string {
  const result = writeBackTypeScript(text, def);
  if (!result.ok) throw new Error(result.error);
  return result.text;
}

/** The text before and after the machine's config, which write-back must never touch. */
function outside(text: string): [string, string] {
  const start = text.indexOf('.createMachine(') + '.createMachine('.length;
  const end = text.lastIndexOf('});') + 1;
  return [text.slice(0, start), text.slice(end)];
}

describe('write-back into the file a machine came from', () => {
  it('gives the file back byte for byte when the room changed nothing', () => {
    expect(writeBackTypeScript(TOGGLE, imported(TOGGLE))).toEqual({ ok: true, text: TOGGLE, changed: false });
  });

  it('renames a state in place: its body, comments and array style stay, and targets follow', () => {
    const def = imported(TOGGLE);
    const text = writeBack(TOGGLE, applyOp(def, { type: 'state.rename', id: stateId(def, 'on'), key: 'active' }));
    expect(text).toContain(`    active: {
      entry: ['notify'],
      on: {
        TOGGLE: 'off', // back
        /* only when ready */
        RESET: { target: 'off', guard: 'isReady' },
      },
    },`);
    expect(text).toContain(
      `on: { TOGGLE: { target: 'active', actions: assign({ count: ({ context }) => context.count + 1 }) } },`,
    );
    expect(outside(text)).toEqual(outside(TOGGLE));
  });

  it('appends a new state in its siblings’ indentation, and drops a deleted transition with its comment', () => {
    const def = imported(TOGGLE);
    let next = applyOp(def, {
      type: 'state.add',
      id: 's_new',
      parent: def.root,
      key: 'broken',
      stateType: 'atomic',
      index: null,
    });
    next = applyOp(next, { type: 'transition.delete', id: transitionId(next, 'RESET') });
    const text = writeBack(TOGGLE, next);
    expect(text).toContain(`    broken: {},\n  },\n});`);
    expect(text).not.toContain('only when ready');
    expect(text).toContain(`TOGGLE: 'off', // back`);
    expect(exportXState(imported(text))).toEqual(exportXState(next));
  });

  it('writes an inline action back as its code, never as a $expr string', () => {
    const def = imported(TOGGLE);
    const toggle = Object.values(def.transitions).find((t) => t.event === 'TOGGLE' && t.actions.length === 1)!;
    const next = applyOp(def, {
      type: 'transition.update',
      id: toggle.id,
      changes: { actions: [...toggle.actions, { type: 'notify' }] },
    });
    const text = writeBack(TOGGLE, next);
    expect(text).not.toContain('$expr');
    expect(text).toContain(`assign({ count: ({ context }) => context.count + 1 })`);
    expect(exportXState(imported(text))).toEqual(exportXState(next));
  });

  it('says why when the file no longer holds a machine', () => {
    const result = writeBackTypeScript('export const x = 1;\n', imported(TOGGLE));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/does not import/);
  });
});

/** Chartroom's own machines, as real files with setup(), comments and inline functions. */
const FILES = fs
  .readdirSync(path.resolve('machines'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.machine.ts'))
  .sort()
  .map((f) => ({ file: f, text: fs.readFileSync(path.resolve('machines', f), 'utf8') }));

describe("write-back over Chartroom's own machine files (property)", () => {
  it('finds them', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(12);
  });

  it('import -> no edit -> write back gives every file unchanged', () => {
    for (const { file, text } of FILES) {
      const result = writeBackTypeScript(text, imported(text));
      expect(result, file).toEqual({ ok: true, text, changed: false });
    }
  });

  it('import -> edits -> write back -> import gives the edited chart, and nothing outside the config moves', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FILES),
        fc.array(intent, { minLength: 1, maxLength: 6 }),
        ({ file, text }, intents) => {
          const start = imported(text);
          const edited = applyOps(start, opsFrom(start, intents, 'edit'));
          const written = writeBack(text, edited);
          expect(outside(written), file).toEqual(outside(text));
          expect(exportXState(imported(written)), file).toEqual(exportXState(edited));
        },
      ),
      { numRuns: 60 },
    );
  });
});
