import { describe, expect, it } from 'vitest';
import { chartroomModel } from '../../../src/lib/collab/chartroom.ts';
import { committed, createDoc, edit, receive, takeBatch } from '../../../src/lib/collab/doc.ts';
import { emptyHistory, recordEdit, redo, undo, type History } from '../../../src/lib/collab/history.ts';
import { checkpoint, opsSince, serverAppend, type ServerDoc } from '../../../src/lib/collab/server-model.ts';
import type { DocState, DroppedOp } from '../../../src/lib/collab/types.ts';
import { emptyMachine } from '../../../src/lib/model/empty.ts';
import {
  addChildState,
  addTransition,
  counterIds,
  type MachineDefinition,
  type Op,
} from '../../../src/lib/model/index.ts';
import { freeKey } from '../../../src/lib/model/resolve.ts';

/**
 * The cases people asked about, with the statechart model over the pure server: concurrent adds
 * under one parent, a transition to a state deleted meanwhile, offline adds, undo and
 * redo of one's own edits on top of others'. Every client makes the same choice, and the
 * canvas's document stays editable after a conflict.
 */

type Doc = DocState<MachineDefinition, Op>;

interface Person {
  id: string;
  doc: Doc;
  history: History<Op>;
  dropped: DroppedOp<Op>[];
}

function room(names: string[]) {
  const initial = emptyMachine('m');
  let server: ServerDoc<MachineDefinition, Op> = { doc: initial, checkpointSeq: 0, log: [] };
  let batch = 0;
  const people = new Map<string, Person>(
    names.map((id) => [
      id,
      { id, doc: createDoc<MachineDefinition, Op>(initial, 0), history: emptyHistory<Op>(), dropped: [] },
    ]),
  );
  const who = (id: string) => people.get(id)!;
  return {
    who,
    get server() {
      return server;
    },
    /** An edit made on what this person sees now. */
    act(id: string, make: (def: MachineDefinition) => Op[]) {
      const p = who(id);
      const ops = make(p.doc.local);
      const result = edit(chartroomModel, p.doc, ops);
      if (!result.ok) throw new Error(`edit refused: ${String(result.error)}`);
      p.history = recordEdit(chartroomModel, p.history, p.doc.local, ops);
      p.doc = result.state;
    },
    step(id: string, which: 'undo' | 'redo') {
      const p = who(id);
      const s = (which === 'undo' ? undo : redo)(chartroomModel, p.history, p.doc.local);
      if (!s) throw new Error(`nothing to ${which}`);
      const result = edit(chartroomModel, p.doc, s.ops);
      if (!result.ok) throw new Error('undo refused');
      p.history = s.history;
      p.doc = result.state;
    },
    /** Sends everything this person has queued; the answer is delivered. */
    send(id: string) {
      const p = who(id);
      for (let taken = takeBatch(p.doc, () => `b${++batch}`); taken; taken = takeBatch(p.doc, () => `b${++batch}`)) {
        const appended = serverAppend(server, { clientId: id, batchId: taken.batch.batchId, ops: taken.batch.ops });
        server = appended.server;
        const landed = committed(chartroomModel, taken.state, taken.batch.batchId, appended.answer.receipt);
        p.doc = landed.state;
        p.dropped.push(...landed.dropped);
        if (landed.gap) this.deliver(id);
      }
    },
    /** The live stream catches this person up. */
    deliver(id: string) {
      const p = who(id);
      const got = receive(chartroomModel, p.doc, opsSince(server, p.doc.version));
      p.doc = got.state;
      p.dropped.push(...got.dropped);
    },
    settle() {
      for (const id of people.keys()) this.send(id);
      for (const id of people.keys()) this.deliver(id);
      const replay = checkpoint(chartroomModel, { doc: initial, checkpointSeq: 0, log: server.log }).doc;
      for (const p of people.values()) {
        expect(p.doc.local).toEqual(replay);
        expect(p.doc.confirmed).toEqual(replay);
      }
      expect(checkpoint(chartroomModel, server).doc).toEqual(replay);
      return replay;
    },
  };
}

const keysUnder = (def: MachineDefinition, parent: string) =>
  (def.states[parent]?.children ?? []).map((c) => def.states[c]?.key);

describe('concurrent edits with the statechart model', () => {
  it('Ada and Bob add a state under one parent at once: both states survive, the later one with a suffix', () => {
    const r = room(['ada', 'bob']);
    const root = r.who('ada').doc.local.root;
    r.act('ada', (def) => addChildState(def, root, { ids: counterIds('ada') }).ops);
    r.act('bob', (def) => addChildState(def, root, { ids: counterIds('bob') }).ops);
    expect(keysUnder(r.who('ada').doc.local, root)).toEqual(['idle', 'state']);
    expect(keysUnder(r.who('bob').doc.local, root)).toEqual(['idle', 'state']);
    r.send('ada');
    r.send('bob');
    const final = r.settle();
    expect(keysUnder(final, root)).toEqual(['idle', 'state', 'state-2']);
    expect(r.who('bob').dropped).toEqual([]);
    // Bob's canvas stays usable: his next edit names his state by id and applies.
    const bobState = final.states[root]!.children.find((c) => final.states[c]?.key === 'state-2')!;
    r.act('bob', () => [{ type: 'state.rename', id: bobState, key: 'bobs' }]);
    expect(keysUnder(r.settle(), root)).toEqual(['idle', 'state', 'bobs']);
  });

  it('a transition to a state deleted meanwhile is dropped, and its author is told in words', () => {
    const r = room(['ada', 'bob']);
    const root = r.who('ada').doc.local.root;
    let target = '';
    r.act('ada', (def) => {
      const added = addChildState(def, root, { ids: counterIds('t'), key: 'done' });
      target = added.id;
      return added.ops;
    });
    r.settle();
    const idle = r.who('bob').doc.local.states[root]!.children[0]!;
    r.act('ada', () => [{ type: 'state.delete', id: target }]);
    r.act('bob', (def) => [addTransition(def, idle, 'FINISH', [target], { ids: counterIds('tr') }).op]);
    r.send('ada');
    r.send('bob');
    const final = r.settle();
    expect(Object.keys(final.transitions)).toEqual([]);
    expect(r.who('bob').dropped.map((d) => d.reason)).toEqual([
      'Your edit (adding transition "FINISH") was dropped: a state it uses was deleted by someone else.',
    ]);
    expect(r.who('ada').dropped).toEqual([]);
    // Still usable after the conflict: Bob edits on.
    r.act('bob', (def) => addChildState(def, root, { ids: counterIds('b2'), key: 'again' }).ops);
    expect(keysUnder(r.settle(), root)).toContain('again');
  });

  it('offline adds survive: Bob adds two states offline while Ada adds one; all three are in the log', () => {
    const r = room(['ada', 'bob']);
    const root = r.who('ada').doc.local.root;
    r.act('bob', (def) => addChildState(def, root, { ids: counterIds('b1') }).ops);
    r.act('bob', (def) => addChildState(def, root, { ids: counterIds('b2') }).ops);
    r.act('ada', (def) => addChildState(def, root, { ids: counterIds('a1') }).ops);
    r.send('ada');
    r.deliver('ada');
    // Bob reconnects: his queue goes out as it is; nothing is refused for being behind.
    r.send('bob');
    const final = r.settle();
    expect(keysUnder(final, root)).toEqual(['idle', 'state', 'state-2', 'state2']);
    expect(r.who('bob').dropped).toEqual([]);
  });

  it("undo and redo of one's own edits work on top of others' edits", () => {
    const r = room(['ada', 'bob']);
    const root = r.who('ada').doc.local.root;
    r.act('ada', (def) => addChildState(def, root, { ids: counterIds('a'), key: 'paid' }).ops);
    r.settle();
    r.act('bob', (def) => addChildState(def, root, { ids: counterIds('b'), key: 'shipped' }).ops);
    r.send('bob');
    r.deliver('ada');
    r.step('ada', 'undo');
    expect(keysUnder(r.settle(), root)).toEqual(['idle', 'shipped']);
    r.step('ada', 'redo');
    // Redo puts the state back where it was.
    expect(keysUnder(r.settle(), root)).toEqual(['idle', 'paid', 'shipped']);
  });

  it('freeKey picks the first free suffix', () => {
    const def = emptyMachine('m');
    expect(freeKey(def, def.root, 'idle')).toBe('idle-2');
    expect(freeKey(def, def.root, 'other')).toBe('other');
  });
});
