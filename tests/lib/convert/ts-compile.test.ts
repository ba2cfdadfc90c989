import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, createMachine, type AnyStateMachine } from 'xstate';
import { exportTypeScript } from '../../../src/lib/convert/ts-export.ts';
import { counterIds, exportXState, fromMachine, importXState } from '../../../src/lib/model/index.ts';
import { fixtures } from '../model/helpers.ts';
import { ownMachines } from './own-machines.ts';

// Exported modules are written under tests/.tmp (git-ignored), so `xstate` resolves from the repository.
const OUT = path.resolve('tests/.tmp/convert-ts');
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
afterAll(() => fs.rmSync(OUT, { recursive: true, force: true }));

const cases = [
  ...(await ownMachines()).map(({ file, machine }) => ({
    name: path.basename(file, '.machine.ts'),
    config: fromMachine(machine),
  })),
  ...fixtures().map(({ name, config }) => ({ name: `fixture-${name.replace('.json', '')}`, config })),
];
const files = cases.map(({ name, config }) => {
  const file = path.join(OUT, `${name}.ts`);
  fs.writeFileSync(file, exportTypeScript(importXState(config, { ids: counterIds() })));
  return { name, file, config };
});

describe('exported TypeScript', () => {
  it('compiles with tsc under the repository strict settings', () => {
    const program = ts.createProgram(
      files.map((f) => f.file),
      {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
    );
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file
        ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
    expect(diagnostics).toEqual([]);
  }, 120_000);

  for (const { name, file, config } of files) {
    it(`${name}: runs with createActor and starts where the JSON config starts`, async () => {
      const mod = (await import(file)) as { machine: AnyStateMachine };
      const actor = createActor(mod.machine, { input: {} });
      const errors: unknown[] = [];
      actor.subscribe({ error: (e) => errors.push(e) });
      actor.start();
      const expected = createActor(createMachine(exportXState(importXState(config)) as never), { input: {} });
      expected.subscribe({ error: () => undefined });
      expected.start();
      expect(actor.getSnapshot().value).toEqual(expected.getSnapshot().value);
      expect(errors).toEqual([]);
      actor.stop();
      expected.stop();
    });
  }
});
