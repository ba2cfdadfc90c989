import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportTypeScript } from '../../../src/lib/convert/ts-export.ts';
import { readModule } from '../../../src/cli/modules.ts';
import { importTypeScript } from '../../../src/lib/convert/ts-import.ts';
import { counterIds, exportXState, fromMachine, importXState, type Json } from '../../../src/lib/model/index.ts';
import { fixtures } from '../model/helpers.ts';
import { ownMachines } from './own-machines.ts';

const machines = await ownMachines();

/** A config with every `$expr` source replaced by a marker (runtime and source text of a function differ). */
function withoutSources(v: Json): Json {
  if (Array.isArray(v)) return v.map(withoutSources);
  if (v === null || typeof v !== 'object') return v;
  if (typeof v.$expr === 'string' && Object.keys(v).length === 1) return { $expr: '…' };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutSources(x)]));
}

describe("TypeScript round trip over Chartroom's own machines", () => {
  it('finds the repository machines', () => {
    expect(machines.length).toBeGreaterThanOrEqual(12);
  });

  for (const { file, name, machine } of machines) {
    it(`${file} ${name}: export to TypeScript and import back equal`, () => {
      const def = importXState(fromMachine(machine), { ids: counterIds('a') });
      const source = exportTypeScript(def);
      const back = importTypeScript(source, { ids: counterIds('b') });
      expect(back.issues.filter((i) => i.severity === 'error')).toEqual([]);
      expect(back.definition).not.toBeNull();
      expect(exportXState(back.definition!)).toStrictEqual(exportXState(def));
    });

    it(`${file} ${name}: its own source file imports as the same chart`, () => {
      const fileName = path.resolve('machines', file);
      const text = fs.readFileSync(fileName, 'utf8');
      // As the command line reads it: what it imports from machines/ (shared.ts) is read there.
      const read = importTypeScript(text, { ids: counterIds('c'), fileName, resolveModule: readModule });
      expect(read.issues.filter((i) => i.severity === 'error')).toEqual([]);
      expect(read.issues.filter((i) => /left out/i.test(i.message))).toEqual([]);
      expect(withoutSources(exportXState(read.definition!))).toStrictEqual(withoutSources(fromMachine(machine)));
    });
  }
});

describe('TypeScript round trip over the hand-written corpus', () => {
  for (const { name, config } of fixtures()) {
    it(name, () => {
      const def = importXState(config, { ids: counterIds() });
      const back = importTypeScript(exportTypeScript(def));
      expect(back.definition && exportXState(back.definition)).toStrictEqual(config);
    });
  }
});
