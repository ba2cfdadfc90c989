import { describe, expect, it } from 'vitest';
import type { PlayShown } from '../../src/lib/ports/test-playback.ts';
import { MAX_PLAYED_STEPS } from '../../src/lib/ports/test-playback.ts';
import { cartId, checkout, OPEN_INPUT, startOpen } from './open-machine.fakes.ts';

/**
 * The open machine as the parent of the Inspector, the tests and the room's test plays:
 * what each hears from the tree (never from a view's effect) and how their edits and plays
 * leave it.
 */

const start = startOpen;

const play = (step: number, steps = 1): PlayShown => ({
  title: 'start in cart → PAY → paid',
  script: {
    start: ['cart'],
    steps: Array.from({ length: steps }, () => ({
      kind: 'event' as const,
      type: 'PAY',
      payload: {},
      guards: {},
      expect: ['paid'],
    })),
  },
  step,
});

describe('open machine: the Inspector, the tests and the plays', () => {
  it('tells the Inspector and the tests each new definition, and the tests its version', () => {
    const { told, child } = start();
    expect(told.inspector).toContainEqual({ type: 'inspector.definitionChanged', definition: checkout });
    expect(told.tests).toContainEqual({ type: 'tests.definitionChanged', definition: checkout, version: 0 });
    const before = { inspector: told.inspector.length, tests: told.tests.length };
    // The same definition again tells nobody anything.
    child('document')?.send({ type: 'test.load', definition: checkout } as never);
    expect(told.inspector).toHaveLength(before.inspector);
    expect(told.tests).toHaveLength(before.tests);
  });

  it('tells the timeline, versions and proposals the head and definition when either changes, not on every document snapshot', () => {
    const { told, child } = start();
    const heads = () => ({
      timeline: told.timeline.filter((e) => e.type === 'timeline.headMoved'),
      versions: told.versions.filter((e) => e.type === 'versions.headMoved'),
      proposals: told.proposals.filter((e) => e.type === 'proposals.headMoved'),
    });
    child('document')?.send({ type: 'test.load', definition: checkout, version: 3 } as never);
    expect(heads()).toEqual({
      timeline: [{ type: 'timeline.headMoved', version: 3 }],
      versions: [{ type: 'versions.headMoved', version: 3, definition: checkout }],
      proposals: [{ type: 'proposals.headMoved', version: 3, definition: checkout }],
    });
    // The document's snapshot again with the same head and definition (a batch confirmed after it was shown ahead, a time-out that changed nothing).
    child('document')?.send({ type: 'seen.expired', batchId: 'confirmed already' } as never);
    child('document')?.send({ type: 'test.load', definition: checkout, version: 3 } as never);
    expect(heads().timeline).toHaveLength(1);
    expect(heads().versions).toHaveLength(1);
    expect(heads().proposals).toHaveLength(1);
    child('document')?.send({ type: 'test.load', definition: checkout, version: 4 } as never);
    expect(heads().timeline.at(-1)).toEqual({ type: 'timeline.headMoved', version: 4 });
    expect(heads().versions.at(-1)).toEqual({ type: 'versions.headMoved', version: 4, definition: checkout });
    expect(heads().proposals).toHaveLength(2);
  });

  it("tells the Inspector the canvas's selection when it changes, not on every pan", () => {
    const { told, child } = start();
    const canvas = child('canvas');
    canvas?.send({ type: 'canvas.select', id: cartId, additive: false });
    expect(told.inspector.at(-1)).toEqual({ type: 'inspector.selectionChanged', selection: [cartId] });
    const count = told.inspector.length;
    canvas?.send({ type: 'canvas.zoomAt', factor: 2, x: 0, y: 0 });
    expect(told.inspector).toHaveLength(count);
  });

  it("sends the Inspector's ops to the document, and none without the right to edit", () => {
    const { told, actor } = start();
    const ops = [{ type: 'state.rename' as const, id: cartId, key: 'basket' }];
    actor.send({ type: 'machine.edit', ops });
    expect(told.document.at(-1)).toEqual({ type: 'doc.edit', ops });
    const edits = told.document.length;
    actor.send({ type: 'machine.edit', ops: [] });
    expect(told.document).toHaveLength(edits);
    actor.send({ type: 'machine.editableChanged', canEdit: false, canSend: true });
    actor.send({ type: 'machine.edit', ops });
    expect(told.document).toHaveLength(edits);
  });

  it('tells the canvas, the Inspector, the simulation, the comments and the proposals who may edit and send', () => {
    const { told, actor } = start({ ...OPEN_INPUT, canSend: true });
    actor.send({ type: 'machine.editableChanged', canEdit: false, canSend: false });
    expect(told.inspector.at(-1)).toEqual({ type: 'inspector.editableChanged', canEdit: false });
    expect(told.simulation.at(-1)).toEqual({ type: 'sim.canSendChanged', canSend: false });
    expect(told.comments.at(-1)).toEqual({ type: 'comments.canCommentChanged', canComment: false });
    // An opened proposal's discussion comments as the machine's own comments do.
    expect(told.proposals.at(-1)).toEqual({ type: 'proposals.canCommentChanged', canComment: false });
    expect(actor.getSnapshot().children.canvas?.getSnapshot().context.canEdit).toBe(false);
    // A room that says nothing of sending leaves it as it was.
    actor.send({ type: 'machine.editableChanged', canEdit: true });
    expect(told.simulation.at(-1)).toEqual({ type: 'sim.canSendChanged', canSend: false });
  });

  it('shares the play selected in the tests with the room when it changes; a script too long plays only here', () => {
    const { told, child } = start();
    const tests = child('tests');
    const first = play(0);
    tests?.send({ type: 'test.play', play: first } as never);
    expect(told.testPlayback).toEqual([{ type: 'playback.show', play: first }]);
    // The same play (another object) is not sent again; the next step is.
    tests?.send({ type: 'test.play', play: { ...first } } as never);
    expect(told.testPlayback).toHaveLength(1);
    const next = { ...first, step: 1 };
    tests?.send({ type: 'test.play', play: next } as never);
    expect(told.testPlayback.at(-1)).toEqual({ type: 'playback.show', play: next });
    tests?.send({ type: 'test.play', play: play(0, MAX_PLAYED_STEPS + 1) } as never);
    expect(told.testPlayback.at(-1)).toEqual({ type: 'playback.show', play: null });
    tests?.send({ type: 'test.play', play: null } as never);
    expect(told.testPlayback).toHaveLength(3);
  });

  it("lays out the canvas's collapse choice: the canvas keeps it and tells the open machine", () => {
    const { told, child, actor } = start();
    child('canvas')?.send({ type: 'canvas.setOpen', ids: [cartId], open: false });
    expect(actor.getSnapshot().children.canvas?.getSnapshot().context.choice).toEqual({
      opened: [],
      closed: [cartId],
    });
    expect(actor.getSnapshot().context.choice).toEqual({ opened: [], closed: [cartId] });
    // A leaf never shows collapsed: the same picture, not laid out again.
    expect(told.layout).toHaveLength(1);
  });

  it('passes a diff asked for to the versions, and the canvas pane its picture is laid out for', () => {
    const { told, actor, child } = start();
    const diff = { type: 'view.diff' as const, before: checkout, after: checkout, label: 'Proposal: nothing' };
    actor.send(diff);
    expect(told.versions).toContainEqual(diff);
    child('canvas')?.send({ type: 'canvas.paneSized', width: 801, height: 479 });
    expect(told.versions).toContainEqual({ type: 'versions.paneSized', width: 800, height: 480 });
  });
});
