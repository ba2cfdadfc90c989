import { describe, expect, it } from 'vitest';
import { exportScxml } from '../../../src/lib/convert/scxml-export.ts';
import { importScxml } from '../../../src/lib/convert/scxml-import.ts';
import { parseXml } from '../../../src/lib/convert/xml.ts';
import { counterIds, exportXState, fromMachine, importXState } from '../../../src/lib/model/index.ts';
import { fixtures } from '../model/helpers.ts';
import { ownMachines } from './own-machines.ts';

const machines = await ownMachines();

describe("SCXML round trip over Chartroom's own machines and the corpus", () => {
  const cases = [
    ...machines.map(({ file, machine }) => ({ name: file, config: fromMachine(machine) })),
    ...fixtures().map(({ name, config }) => ({ name, config })),
  ];
  for (const { name, config } of cases) {
    it(`${name}: exports to SCXML and imports back equal`, () => {
      const def = importXState(config, { ids: counterIds('a') });
      const xml = exportScxml(def);
      const back = importScxml(xml, { ids: counterIds('b') });
      expect(back.issues.filter((i) => i.severity === 'error')).toEqual([]);
      expect(back.definition).not.toBeNull();
      expect(exportXState(back.definition!)).toStrictEqual(exportXState(def));
      expect(back.definition!.name).toBe(def.name);
    });
  }
});

describe('plain W3C SCXML', () => {
  const text = `<?xml version="1.0"?>
<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="light" initial="green">
  <datamodel><data id="count" expr="0"/></datamodel>
  <state id="green">
    <onentry><log label="hi" expr="'green'"/></onentry>
    <transition event="TIMER" target="yellow" cond="ready"/>
  </state>
  <state id="yellow" initial="yellow.a">
    <state id="yellow.a"><transition event="NEXT" target="yellow.b"/></state>
    <final id="yellow.b"/>
    <transition event="done.state.yellow" target="red"/>
  </state>
  <parallel id="red">
    <state id="walk"/>
    <state id="wait"/>
    <history id="red.hist" type="deep"><transition target="walk"/></history>
    <transition event="TIMER" target="green"/>
  </parallel>
</scxml>`;

  it('imports states, transitions, done events, history and the datamodel; placeholder for <log> with its line', () => {
    const r = importScxml(text);
    expect(r.issues.filter((i) => i.severity === 'error')).toEqual([]);
    const out = exportXState(r.definition!);
    expect(out).toMatchObject({
      id: 'light',
      initial: 'green',
      context: { count: 0 },
      states: {
        green: {
          entry: { type: 'scxml.log', params: { label: 'hi', expr: "'green'" } },
          on: { TIMER: { target: 'yellow', guard: 'ready' } },
        },
        yellow: { initial: 'a', states: { a: { on: { NEXT: 'b' } }, b: { type: 'final' } }, onDone: 'red' },
        red: { type: 'parallel', states: { hist: { type: 'history', history: 'deep', target: 'walk' } } },
      },
    });
    const log = r.issues.find((i) => i.message.includes('<log>'));
    expect(log?.at).toMatchObject({ line: 5, column: 14 });
  });

  it('reports an unknown target with its line and column and imports the rest', () => {
    const r = importScxml(text.replace('target="yellow" cond', 'target="nowhere" cond'));
    const issue = r.issues.find((i) => i.message.includes('nowhere'));
    expect(issue).toMatchObject({ severity: 'error', at: { line: 6, column: 5 } });
    expect(r.definition).not.toBeNull();
    expect(Object.keys(exportXState(r.definition!).states as object)).toEqual(['green', 'yellow', 'red']);
  });

  it('refuses malformed XML and DTDs with a positioned error', () => {
    const bad = importScxml('<scxml><state id="a"></scxml>').issues[0];
    expect(bad).toMatchObject({ severity: 'error', at: { line: 1, column: 22 } });
    expect(bad?.message).toContain('closes <state>');
    const bomb = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><scxml>&lol;</scxml>';
    expect(importScxml(bomb).issues[0]?.message).toContain('document type declarations are not supported');
    expect(importScxml('<machine/>').issues[0]?.message).toContain('expected an <scxml> document');
  });

  it('parses entities, CDATA and comments', () => {
    const el = parseXml(`<a x="1 &lt; 2 &#x41;&#66;"><!-- c --><![CDATA[<raw>]]>t&amp;u</a>`);
    expect(el.attrs.x).toBe('1 < 2 AB');
    expect(el.children.map((c) => ('text' in c ? c.text : c.name))).toEqual(['<raw>', 't&u']);
  });
});
