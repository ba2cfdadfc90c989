import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { exportScxml } from '../../../src/lib/convert/scxml-export.ts';
import { importScxml } from '../../../src/lib/convert/scxml-import.ts';
import { counterIds, exportXState, importXState } from '../../../src/lib/model/index.ts';
import type { Json } from '../../../src/lib/model/types.ts';

/**
 * SCXML documents as people write them (W3C SCXML 1.0 rules), imported and then run by
 * the real `xstate`: each case checks what the SCXML spec says happens, not just the shape.
 */

const doc = (body: string, attrs = ''): string =>
  `<?xml version="1.0"?>\n<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0"${attrs}>\n${body}\n</scxml>`;

function read(xml: string) {
  const r = importScxml(xml);
  const errors = r.issues.filter((i) => i.severity === 'error');
  expect(errors).toEqual([]);
  expect(r.definition).not.toBeNull();
  return { ...r, config: exportXState(r.definition!) };
}

/** Runs the imported machine; every `<log label>` it executes is recorded in order. */
function run(xml: string, events: string[] = []) {
  const { config, issues } = read(xml);
  const log: string[] = [];
  const machine = createMachine(config as never).provide({
    actions: {
      'scxml.log': (_: unknown, params: Json) => {
        log.push(String((params as { label?: string }).label));
      },
    } as never,
  });
  const actor = createActor(machine).start();
  for (const type of events) actor.send({ type });
  const value: unknown = actor.getSnapshot().value;
  return { value, log, config, issues };
}

const log = (label: string): string => `<log label="${label}"/>`;

describe('SCXML import: the document means what the spec says', () => {
  it('a compound state or <scxml> without initial starts in its first child state (3.3, 3.6)', () => {
    const xml = doc(`
  <state id="work">
    <history id="h"/>
    <state id="first"/>
    <state id="second"/>
  </state>
  <state id="rest"/>`);
    expect(run(xml).value).toEqual({ work: 'first' });
  });

  it('the <initial> element: its transition is followed and its actions run after the parent is entered (3.6)', () => {
    const xml = doc(`
  <state id="p">
    <onentry>${log('enter p')}</onentry>
    <initial><transition target="b">${log('initial')}</transition></initial>
    <state id="a"/>
    <state id="b"><onentry>${log('enter b')}</onentry></state>
  </state>`);
    const { value, log: ran } = run(xml);
    expect(value).toEqual({ p: 'b' });
    expect(ran).toEqual(['enter p', 'initial', 'enter b']);
  });

  it('an <initial> without actions is plain XState initial', () => {
    const { config } = read(
      doc(`<state id="p"><initial><transition target="b"/></initial><state id="a"/><state id="b"/></state>`),
    );
    expect(config.states).toMatchObject({ p: { initial: 'b' } });
  });

  it('a transition to its own state (default type "external") exits and re-enters it (3.13)', () => {
    const xml = doc(`
  <state id="s">
    <onentry>${log('enter')}</onentry>
    <onexit>${log('exit')}</onexit>
    <transition event="again" target="s"/>
    <transition event="deeper" target="s2"/>
    <transition event="stay" type="internal" target="s2"/>
    <state id="s1"/>
    <state id="s2"/>
  </state>`);
    const { log: ran, value } = run(xml, ['again', 'deeper', 'stay']);
    expect(ran).toEqual(['enter', 'exit', 'enter', 'exit', 'enter']);
    expect(value).toEqual({ s: 's2' });
  });

  it('<data expr> with an ECMAScript expression is kept as an expression with a note', () => {
    const r = read(
      doc(
        `<datamodel><data id="list" expr="[1, 2].map(function (x) { return x * 2; })"/><data id="n">3</data></datamodel><state id="a"/>`,
      ),
    );
    expect(r.config.context).toEqual({ list: { $expr: '[1, 2].map(function (x) { return x * 2; })' }, n: 3 });
    expect(r.issues.some((i) => i.severity === 'warning' && i.message.includes('kept as an expression'))).toBe(true);
  });

  it('a <datamodel> inside a state is kept (SCXML binds its data machine-wide)', () => {
    const r = read(doc(`<state id="a"><datamodel><data id="tries" expr="0"/></datamodel></state>`));
    expect(r.config.context).toEqual({ tries: 0 });
  });

  it('<scxml name> equal to a state id is the machine name, not a duplicate id', () => {
    const r = read(
      doc(`<state id="door"><transition event="go" target="other"/></state><state id="other"/>`, ' name="door"'),
    );
    expect(r.config).toMatchObject({ id: 'door', initial: 'door', states: { door: { on: { go: 'other' } } } });
  });

  it('done.state.<id> of a child fires when that child is done, as in XState (3.7.1)', () => {
    const xml = doc(`
  <state id="job">
    <state id="step">
      <state id="working"><transition event="finish" target="finished"/></state>
      <final id="finished"/>
      <transition event="never" target="working"/>
    </state>
    <state id="after"/>
    <transition event="done.state.step" target="after"/>
  </state>`);
    expect(run(xml, ['finish']).value).toEqual({ job: 'after' });
  });

  it("a history state's default transition keeps its actions, run when there is no history yet (3.10.2)", () => {
    const xml = doc(`
  <state id="off"><transition event="on" target="h"/></state>
  <state id="on">
    <history id="h"><transition target="b">${log('default')}</transition></history>
    <state id="a"/>
    <state id="b"><transition event="next" target="a"/></state>
    <transition event="off" target="off"/>
  </state>`);
    const first = run(xml, ['on']);
    expect(first.value).toEqual({ on: 'b' });
    expect(first.log).toEqual(['default']);
    const again = run(xml, ['on', 'next', 'off', 'on']);
    expect(again.value).toEqual({ on: 'a' });
    expect(again.log).toEqual(['default']);
  });

  it('a deep initial target is mapped, not refused', () => {
    const deepXml = doc(
      `<state id="p"><state id="q"><state id="q1"/><state id="q2"/></state></state>`,
      ' initial="q2"',
    );
    expect(run(deepXml).value).toEqual({ p: { q: 'q2' } });
    const byDefault = read(
      doc(`<state id="p"><state id="q"><state id="q1"/><state id="q2"/></state></state>`, ' initial="q1"'),
    );
    expect(byDefault.config).toMatchObject({ initial: 'p', states: { p: { initial: 'q' } } });
    expect(Object.keys(byDefault.config.states as object)).toEqual(['p']);
  });
});

describe('SCXML export: names with spaces', () => {
  const config = {
    id: 'order flow',
    initial: 'Get Ready',
    states: {
      'Get Ready': {
        initial: 'pick item',
        states: {
          'pick item': { on: { 'item picked': 'pay now' } },
          'pay now': { id: 'the payment', on: { 'card declined': { target: 'pick item', reenter: true } } },
        },
        on: { 'give up': '#order flow.Get_Ready' },
      },
      Get_Ready: { type: 'final' },
      '1st': { on: { back: '#the payment' } },
    },
  };
  const wrapped = { ...config, entry: 'start', on: { 'reset all': '.Get Ready' } };

  it.each([
    ['a compound root', config],
    ['a root with its own transitions', wrapped],
  ])('%s: writes valid SCXML ids and event lists, and imports back to the same definition', (_, machine) => {
    const def = importXState(machine, { ids: counterIds('a') });
    expect(def.transitions).not.toEqual({});
    const xml = exportScxml(def);
    const states = [...xml.matchAll(/<(?:state|final|parallel|history) id="([^"]*)"/g)].map((m) => m[1] as string);
    for (const id of states) expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9_.-]*$/);
    expect(new Set(states).size).toBe(states.length);
    for (const m of xml.matchAll(/ (?:target|initial)="([^"]*)"/g))
      for (const ref of (m[1] as string).split(' ')) expect(states).toContain(ref);
    for (const m of xml.matchAll(/ event="([^"]*)"/g)) expect(m[1]).not.toMatch(/\s/);
    const back = importScxml(xml, { ids: counterIds('b') });
    expect(back.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(exportXState(back.definition!)).toStrictEqual(exportXState(def));
  });
});
