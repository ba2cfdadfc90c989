import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  detectFormat,
  exportMermaid,
  exportScxml,
  exportTypeScript,
  importScxml,
  importTypeScript,
} from '../../../src/lib/convert/index.ts';
import type { ConvertResult } from '../../../src/lib/convert/issues.ts';
import { counterIds, exportXState, integrityProblems } from '../../../src/lib/model/index.ts';
import { definition } from '../model/arbitraries.ts';

const RUNS = 150;
const SLOW = 120_000;

/** What every answer to bad input must look like: no throw, and either a sound definition or a clear, placed error. */
function wellFormed(result: ConvertResult, text: string): void {
  expect(Array.isArray(result.issues)).toBe(true);
  for (const issue of result.issues) {
    expect(typeof issue.message).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
    if (issue.at) {
      expect(issue.at.line).toBeGreaterThanOrEqual(1);
      expect(issue.at.column).toBeGreaterThanOrEqual(1);
      expect(issue.at.offset).toBeLessThanOrEqual(Math.max(text.length, 0));
    }
  }
  if (result.definition === null) expect(result.issues.some((i) => i.severity === 'error')).toBe(true);
  else expect(integrityProblems(result.definition)).toEqual([]);
}

const SOURCES = ['account/session', 'open-machine/document', 'open-machine/canvas'].map((m) =>
  fs.readFileSync(path.resolve('machines', `${m}.machine.ts`), 'utf8'),
);

/** A real source with a random slice cut, duplicated or replaced by noise. */
const mutated = (sources: string[]) =>
  fc
    .record({
      which: fc.nat({ max: sources.length - 1 }),
      at: fc.nat(),
      len: fc.nat({ max: 400 }),
      noise: fc.string({
        unit: fc.constantFrom(
          '{',
          '}',
          '[',
          ']',
          '(',
          ')',
          ',',
          ':',
          '"',
          "'",
          '`',
          '<',
          '>',
          '/',
          '*',
          '\\',
          '\n',
          '$',
          '&',
          ';',
          'a',
          '0',
        ),
        maxLength: 30,
      }),
      mode: fc.constantFrom('cut', 'insert', 'replace', 'truncate'),
    })
    .map(({ which, at, len, noise, mode }) => {
      const s = sources[which] as string;
      const i = at % (s.length + 1);
      if (mode === 'cut') return s.slice(0, i) + s.slice(i + len);
      if (mode === 'insert') return s.slice(0, i) + noise + s.slice(i);
      if (mode === 'truncate') return s.slice(0, i);
      return s.slice(0, i) + noise + s.slice(i + len);
    });

const HOSTILE_TS = [
  '',
  'createMachine',
  'createMachine()',
  'createMachine(42)',
  `createMachine(${'['.repeat(20_000)})`,
  `createMachine({ states: ${'{ a: '.repeat(5_000)}{}${' }'.repeat(5_000)} })`,
  'createMachine({ __proto__: { polluted: true }, constructor: "x", states: { __proto__: {}, toString: {} } })',
  'createMachine({ ...globalThis, states: { [Symbol.iterator]: {} }, initial: `${x}` })',
  'const a = b; const b = a; createMachine(a)',
  'const a = { ...a }; createMachine({ states: { x: { ...a } } })',
  'createMachine({ entry: () => { while (true) {} }, states: { a: { on: { E: { target: "#nope" } } } } })',
  '\u0000\uffff\ud800createMachine({})',
  'x'.repeat(2_000_001),
];

const HOSTILE_XML = [
  '',
  '<',
  '<scxml',
  '<scxml>',
  '</scxml>',
  '<scxml></state>',
  `<scxml>${'<state>'.repeat(5_000)}${'</state>'.repeat(5_000)}</scxml>`,
  `<scxml>${'<state id="a">'.repeat(200)}${'</state>'.repeat(200)}</scxml>`,
  '<!DOCTYPE x [<!ENTITY a "&a;&a;">]><scxml>&a;</scxml>',
  '<scxml a="1" a="2"/>',
  '<scxml>&#xD800;</scxml>',
  '<scxml>&bogus;</scxml>',
  '<scxml><state id="__proto__"><transition target="constructor"/></state><state id="constructor"/></scxml>',
  '<scxml initial="nope"><state id="a" initial="b"/><datamodel><data id="x" expr="{not json"/></datamodel></scxml>',
  '<scxml><state id="a"/><state id="a"/></scxml>',
  '<scxml><history id="h"/></scxml>',
  '<a/><b/>',
];

describe('fuzzing the TypeScript importer', () => {
  it(
    'never throws on hostile input and always answers clearly',
    () => {
      for (const text of HOSTILE_TS) wellFormed(importTypeScript(text), text);
    },
    SLOW,
  );

  it('a file with no machine says so', () => {
    expect(importTypeScript('export const x = 1;').issues[0]?.message).toContain('no createMachine(...) call found');
    expect(importTypeScript('createMachine(42)').issues[0]?.message).toContain('not an object literal');
    expect(importTypeScript('createMachine({ on: {').issues[0]?.message).toMatch(/^syntax error/);
  });

  it(
    'never throws on random text or mutated real machines',
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.string({ maxLength: 300 }), mutated(SOURCES)), (text) => {
          wellFormed(importTypeScript(text), text);
        }),
        { numRuns: RUNS },
      );
    },
    SLOW,
  );
});

describe('fuzzing the SCXML importer', () => {
  it('never throws on hostile input and always answers clearly', () => {
    for (const text of HOSTILE_XML) wellFormed(importScxml(text), text);
  });

  it(
    'never throws on random text or mutated exports',
    () => {
      fc.assert(
        fc.property(
          definition.chain((def) =>
            fc.oneof(fc.string({ maxLength: 300 }), mutated([exportScxml(def)]), fc.constant(exportScxml(def))),
          ),
          (text) => wellFormed(importScxml(text), text),
        ),
        { numRuns: RUNS },
      );
    },
    SLOW,
  );
});

describe('properties over random definitions', () => {
  it(
    'TypeScript and SCXML exports import back to the same chart; Mermaid names every state',
    () => {
      fc.assert(
        fc.property(definition, (def) => {
          const want = exportXState(def);
          const ts = importTypeScript(exportTypeScript(def), { ids: counterIds('t') });
          expect(ts.definition && exportXState(ts.definition)).toStrictEqual(want);
          const scxml = importScxml(exportScxml(def), { ids: counterIds('x') });
          expect(scxml.definition && exportXState(scxml.definition)).toStrictEqual(want);
          const mermaid = exportMermaid(def);
          expect(mermaid.startsWith('stateDiagram-v2\n')).toBe(true);
          for (const s of Object.values(def.states)) if (s.parent !== null) expect(mermaid).toContain(`"${s.key}`);
        }),
        { numRuns: RUNS },
      );
    },
    SLOW,
  );

  it('detects formats by file name, then by content', () => {
    expect(detectFormat('{}', 'm.scxml')).toBe('scxml');
    expect(detectFormat('anything', 'm.js')).toBe('typescript');
    expect(detectFormat('  { "id": "x" }')).toBe('json');
    expect(detectFormat('<?xml version="1.0"?><scxml/>')).toBe('scxml');
    expect(detectFormat('import { setup } from "xstate"')).toBe('typescript');
  });
});
