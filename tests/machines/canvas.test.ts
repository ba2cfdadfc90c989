import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, type SnapshotFrom } from 'xstate';
import { getShortestPaths, getStateNodes } from 'xstate/graph';
import { canvasMachine, type CanvasEdit, type CanvasEvent } from '../../machines/open-machine/canvas.machine.ts';

type Snapshot = SnapshotFrom<typeof canvasMachine>;

function start(canEdit = true) {
  const actor = createActor(canvasMachine, { input: { canEdit } });
  const edits: CanvasEdit[] = [];
  actor.on('*', (e) => edits.push(e));
  actor.start();
  return { actor, edits };
}

describe('canvas machine', () => {
  it("keeps this person's collapse choice, each id in one list, and tells its editor each change", () => {
    const told: unknown[] = [];
    const editor = createActor(fromCallback(({ receive }) => receive((e) => told.push(e)))).start();
    const actor = createActor(canvasMachine, { input: { canEdit: false, editor } }).start();
    actor.send({ type: 'canvas.setOpen', ids: ['a', 'b'], open: false });
    actor.send({ type: 'canvas.setOpen', ids: ['a'], open: true });
    expect(actor.getSnapshot().context.choice).toEqual({ opened: ['a'], closed: ['b'] });
    // A view choice, not an edit: a viewer makes it too.
    expect(told).toEqual([
      { type: 'machine.viewChanged', opened: [], closed: ['a', 'b'] },
      { type: 'machine.viewChanged', opened: ['a'], closed: ['b'] },
    ]);
  });

  it('selects, toggles with shift and clears', () => {
    const { actor } = start();
    actor.send({ type: 'canvas.select', id: 'a', additive: false });
    actor.send({ type: 'canvas.select', id: 'b', additive: true });
    expect(actor.getSnapshot().context.selection).toEqual(['a', 'b']);
    actor.send({ type: 'canvas.select', id: 'a', additive: true });
    expect(actor.getSnapshot().context.selection).toEqual(['b']);
    actor.send({ type: 'canvas.select', id: 'c', additive: false });
    expect(actor.getSnapshot().context.selection).toEqual(['c']);
    actor.send({ type: 'canvas.clearSelection' });
    expect(actor.getSnapshot().context.selection).toEqual([]);
  });

  it('pans while panning and zooms around the pointer', () => {
    const { actor } = start();
    actor.send({ type: 'canvas.panBy', dx: 10, dy: 10 });
    expect(actor.getSnapshot().context.viewport).toEqual({ x: 24, y: 24, zoom: 1 });
    actor.send({ type: 'canvas.panStart' });
    expect(actor.getSnapshot().hasTag('panning')).toBe(true);
    actor.send({ type: 'canvas.panBy', dx: 10, dy: -4 });
    actor.send({ type: 'canvas.panEnd' });
    expect(actor.getSnapshot().context.viewport).toEqual({ x: 34, y: 20, zoom: 1 });
    // The world point under the pointer stays under it.
    const before = actor.getSnapshot().context.viewport;
    const world = { x: (100 - before.x) / before.zoom, y: (80 - before.y) / before.zoom };
    actor.send({ type: 'canvas.zoomAt', factor: 2, x: 100, y: 80 });
    const after = actor.getSnapshot().context.viewport;
    expect(after.zoom).toBe(2);
    expect(world.x * after.zoom + after.x).toBeCloseTo(100);
    expect(world.y * after.zoom + after.y).toBeCloseTo(80);
    actor.send({ type: 'canvas.zoomAt', factor: 1000, x: 0, y: 0 });
    expect(actor.getSnapshot().context.viewport.zoom).toBe(4);
  });

  it('fits a box into the screen, centred', () => {
    const { actor } = start();
    actor.send({ type: 'canvas.fit', bounds: { x: 0, y: 0, width: 1400, height: 500 }, width: 764, height: 600 });
    const v = actor.getSnapshot().context.viewport;
    expect(v.zoom).toBeCloseTo(0.5);
    expect(v.x + 700 * v.zoom).toBeCloseTo(764 / 2);
    expect(v.y + 250 * v.zoom).toBeCloseTo(300);
  });

  it('on a phone, fits no smaller than readable names (8 px), from the chart start across', () => {
    const { actor } = start();
    actor.send({ type: 'canvas.fit', bounds: { x: 0, y: 0, width: 1400, height: 500 }, width: 390, height: 700 });
    const v = actor.getSnapshot().context.viewport;
    expect(v.zoom * 13).toBeCloseTo(8);
    expect(v.x).toBeCloseTo(32);
    expect(v.y + 250 * v.zoom).toBeCloseTo(350);
  });

  it('renames in place: emits edit.rename with the key and returns to idle', () => {
    const { actor, edits } = start();
    actor.send({ type: 'canvas.renameStart', id: 's1' });
    expect(actor.getSnapshot().matches('renaming')).toBe(true);
    expect(actor.getSnapshot().context.editing).toBe('s1');
    actor.send({ type: 'canvas.renameCommit', key: 'paid' });
    expect(edits).toEqual([{ type: 'edit.rename', id: 's1', key: 'paid' }]);
    expect(actor.getSnapshot().matches('idle')).toBe(true);
  });

  it('adds a child or sibling of the selected state and goes on to rename it', () => {
    const { actor, edits } = start();
    actor.send({ type: 'canvas.addChild', id: 's_new' });
    expect(edits).toEqual([]);
    actor.send({ type: 'canvas.select', id: 's1', additive: false });
    actor.send({ type: 'canvas.addChild', id: 's_new' });
    expect(actor.getSnapshot().context).toMatchObject({ editing: 's_new', selection: ['s_new'] });
    actor.send({ type: 'canvas.cancel' });
    actor.send({ type: 'canvas.addSibling', id: 's_two' });
    expect(edits).toEqual([
      { type: 'edit.addChild', parent: 's1', id: 's_new' },
      { type: 'edit.addSibling', sibling: 's_new', id: 's_two' },
    ]);
  });

  it('deletes the selection', () => {
    const { actor, edits } = start();
    actor.send({ type: 'canvas.delete' });
    actor.send({ type: 'canvas.select', id: 'a', additive: false });
    actor.send({ type: 'canvas.select', id: 't', additive: true });
    actor.send({ type: 'canvas.delete' });
    expect(edits).toEqual([{ type: 'edit.delete', ids: ['a', 't'] }]);
    expect(actor.getSnapshot().context.selection).toEqual([]);
  });

  it('drags to connect, then labels the new transition; a drop on nothing cancels', () => {
    const { actor, edits } = start();
    actor.send({ type: 'canvas.connectStart', source: 'a', x: 1, y: 2 });
    actor.send({ type: 'canvas.connectMove', x: 50, y: 60 });
    expect(actor.getSnapshot().context.connect).toEqual({ source: 'a', x: 50, y: 60 });
    actor.send({ type: 'canvas.connectEnd', target: null, transitionId: 't1' });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    actor.send({ type: 'canvas.connectStart', source: 'a', x: 1, y: 2 });
    actor.send({ type: 'canvas.connectEnd', target: 'b', transitionId: 't2' });
    expect(actor.getSnapshot().matches('labelling')).toBe(true);
    actor.send({ type: 'canvas.labelCommit', event: 'GO' });
    expect(edits).toEqual([
      { type: 'edit.connect', source: 'a', target: 'b', id: 't2' },
      { type: 'edit.event', id: 't2', event: 'GO' },
    ]);
  });

  it('drags the end of a transition onto a state to retarget it; the line shows the state under the pointer; a drop on nothing changes nothing', () => {
    const { actor, edits } = start();
    actor.send({ type: 'canvas.select', id: 't', additive: false });
    actor.send({ type: 'canvas.retargetStart', transition: 't', index: 1, source: 'a', x: 1, y: 2 });
    expect(actor.getSnapshot().hasTag('connecting')).toBe(true);
    expect(actor.getSnapshot().hasTag('retargeting')).toBe(true);
    actor.send({ type: 'canvas.connectMove', x: 50, y: 60, over: 'c' });
    expect(actor.getSnapshot().context.connect).toEqual({
      source: 'a',
      x: 50,
      y: 60,
      over: 'c',
      retarget: { transition: 't', index: 1 },
    });
    actor.send({ type: 'canvas.connectEnd', target: null, transitionId: 'unused' });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    expect(actor.getSnapshot().context.connect).toBeNull();
    actor.send({ type: 'canvas.retargetStart', transition: 't', index: 1, source: 'a', x: 1, y: 2 });
    actor.send({ type: 'canvas.connectEnd', target: 'c', transitionId: 'unused' });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    // The transition stays selected, so its handle is there for another drag.
    expect(actor.getSnapshot().context.selection).toEqual(['t']);
    expect(edits).toEqual([{ type: 'edit.retarget', id: 't', index: 1, target: 'c' }]);
  });

  it('a viewer can select, pan and zoom but not edit; losing edit rights ends a gesture', () => {
    const { actor, edits } = start(false);
    actor.send({ type: 'canvas.select', id: 'a', additive: false });
    for (const e of [
      { type: 'canvas.renameStart', id: 'a' },
      { type: 'canvas.addChild', id: 'x' },
      { type: 'canvas.delete' },
      { type: 'canvas.connectStart', source: 'a', x: 0, y: 0 },
      { type: 'canvas.retargetStart', transition: 't', index: 0, source: 'a', x: 0, y: 0 },
      { type: 'canvas.labelStart', id: 't' },
    ] as CanvasEvent[]) {
      actor.send(e);
      expect(actor.getSnapshot().matches('idle')).toBe(true);
    }
    expect(edits).toEqual([]);
    actor.send({ type: 'canvas.editableChanged', canEdit: true });
    actor.send({ type: 'canvas.renameStart', id: 'a' });
    actor.send({ type: 'canvas.editableChanged', canEdit: false });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    expect(actor.getSnapshot().context.editing).toBeNull();
  });

  it('follows a peer viewport only when not panning', () => {
    const { actor } = start();
    actor.send({ type: 'canvas.viewportFollowed', viewport: { x: 5, y: 6, zoom: 2 } });
    expect(actor.getSnapshot().context.viewport).toEqual({ x: 5, y: 6, zoom: 2 });
    actor.send({ type: 'canvas.panStart' });
    actor.send({ type: 'canvas.viewportFollowed', viewport: { x: 0, y: 0, zoom: 1 } });
    expect(actor.getSnapshot().context.viewport).toEqual({ x: 5, y: 6, zoom: 2 });
  });
});

describe('canvas machine paths (xstate/graph)', () => {
  const events: CanvasEvent[] = [
    { type: 'canvas.select', id: 'a', additive: false },
    { type: 'canvas.panStart' },
    { type: 'canvas.panBy', dx: 1, dy: 1 },
    { type: 'canvas.panEnd' },
    { type: 'canvas.renameStart', id: 'a' },
    { type: 'canvas.renameCommit', key: 'b' },
    { type: 'canvas.cancel' },
    { type: 'canvas.addChild', id: 'c' },
    { type: 'canvas.addSibling', id: 'd' },
    { type: 'canvas.connectStart', source: 'a', x: 0, y: 0 },
    { type: 'canvas.connectEnd', target: 'a', transitionId: 't' },
    { type: 'canvas.connectEnd', target: null, transitionId: 't' },
    { type: 'canvas.retargetStart', transition: 't', index: 0, source: 'a', x: 0, y: 0 },
    { type: 'canvas.labelStart', id: 't' },
    { type: 'canvas.labelCommit', event: 'E' },
    { type: 'canvas.editableChanged', canEdit: false },
  ];
  const serialize = (s: Snapshot) => JSON.stringify([s.value, s.context.canEdit, s.context.selection.length > 0]);
  const paths = getShortestPaths(canvasMachine, { events, serializeState: serialize, input: { canEdit: true } });

  it('reaches every state node', () => {
    const all = getStateNodes(canvasMachine.root)
      .filter((n) => n.path.length > 0)
      .map((n) => n.path.join('.'));
    expect(all).toEqual(['idle', 'panning', 'renaming', 'connecting', 'retargeting', 'labelling']);
    const reached = new Set(paths.map((p) => String(p.state.value)));
    for (const node of all) expect(reached).toContain(node);
  });

  it.each(paths.map((p) => [serialize(p.state), p] as const))(
    'replays the path to %s on the running machine',
    (_, path) => {
      const { actor } = start();
      for (const step of path.steps) actor.send(step.event);
      expect(serialize(actor.getSnapshot())).toBe(serialize(path.state));
    },
  );
});
