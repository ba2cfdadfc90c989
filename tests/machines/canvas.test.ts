import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, type SnapshotFrom } from 'xstate';
import { getShortestPaths, getStateNodes } from 'xstate/graph';
import { canvasMachine, type CanvasEdit, type CanvasEvent } from '../../machines/open-machine/canvas.machine.ts';
import { fitViewport, fitZoomFloor } from '../../src/lib/layout/fit.ts';
import { extentOf, type Layout } from '../../src/lib/layout/types.ts';
import { chart } from './canvas-charts.ts';

type Snapshot = SnapshotFrom<typeof canvasMachine>;

/** Fit's viewport for a layout in a stage, as src/lib/layout/fit.ts works it out. */
const fitOf = (width: number, height: number, layout: Layout) =>
  fitViewport(extentOf(layout), width, height, 32, fitZoomFloor(width), layout.nodes.first ?? null);

const viewport = (actor: { getSnapshot(): Snapshot }) => actor.getSnapshot().context.viewport;
/** The open machine tells the canvas a new layout. */
const show = (actor: { send(event: CanvasEvent): void }, layout: Layout, overview = '') =>
  actor.send({ type: 'canvas.laidOut', layout, overview });

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

  it('fits the first layout into the stage, centred, once the stage is measured', () => {
    const { actor } = start();
    show(actor, chart(1400, 500));
    // No stage yet: nothing to fit into.
    expect(viewport(actor)).toEqual({ x: 24, y: 24, zoom: 1 });
    actor.send({ type: 'canvas.paneSized', width: 764, height: 600 });
    const v = viewport(actor);
    expect(v.zoom).toBeCloseTo(0.5);
    expect(v.x + 700 * v.zoom).toBeCloseTo(764 / 2);
    expect(v.y + 250 * v.zoom).toBeCloseTo(300);
  });

  it('on a phone, fits no smaller than readable names (8 px), keeping the initial state in view', () => {
    const { actor } = start();
    actor.send({ type: 'canvas.paneSized', width: 390, height: 700 });
    show(actor, chart(1400, 500, { x: 1000, y: 200 }));
    const v = viewport(actor);
    expect(v.zoom * 13).toBeCloseTo(8);
    // The initial state (centre x 1050) is at the pane's centre, not the chart's start.
    expect(v.x + 1050 * v.zoom).toBeCloseTo(195);
    expect(v.y + 250 * v.zoom).toBeCloseTo(350);
  });

  describe('fits by itself while no one has moved the view', () => {
    const sized = () => {
      const { actor } = start();
      actor.send({ type: 'canvas.paneSized', width: 800, height: 600 });
      return actor;
    };

    it('fits the first layout, whatever was done to the view before it', () => {
      const actor = sized();
      actor.send({ type: 'canvas.zoomAt', factor: 2, x: 0, y: 0 });
      show(actor, chart(400, 300));
      expect(viewport(actor)).toEqual(fitOf(800, 600, chart(400, 300)));
    });

    it('fits a layout whose extent changed a lot again; a small change leaves the view', () => {
      const actor = sized();
      show(actor, chart(400, 300));
      show(actor, chart(500, 300));
      expect(viewport(actor)).toEqual(fitOf(800, 600, chart(400, 300)));
      show(actor, chart(1600, 300));
      expect(viewport(actor)).toEqual(fitOf(800, 600, chart(1600, 300)));
    });

    it('fits a layout made for another overview again, at the same extent', () => {
      const actor = sized();
      show(actor, chart(400, 300));
      show(actor, chart(420, 300), 'a b');
      expect(viewport(actor)).toEqual(fitOf(800, 600, chart(420, 300)));
    });

    it('fits again when the stage takes a new size', () => {
      const actor = sized();
      show(actor, chart(400, 300));
      actor.send({ type: 'canvas.paneSized', width: 1200, height: 900 });
      expect(viewport(actor)).toEqual(fitOf(1200, 900, chart(400, 300)));
    });

    it.each([
      ['a pan', [{ type: 'canvas.panStart' }, { type: 'canvas.panBy', dx: 5, dy: 5 }, { type: 'canvas.panEnd' }]],
      ['a zoom', [{ type: 'canvas.zoomAt', factor: 2, x: 0, y: 0 }]],
      ['a minimap jump', [{ type: 'canvas.viewportFollowed', viewport: { x: 1, y: 2, zoom: 1 } }]],
      ['following someone', [{ type: 'canvas.viewFollowed', view: { x: 10, y: 10, zoom: 1 } }]],
      ['framing a found state', [{ type: 'canvas.find', id: 'first' }]],
      ['framing a picked element', [{ type: 'canvas.frame', box: { x: 10, y: 10, width: 40, height: 20 } }]],
    ] as [string, CanvasEvent[]][])('after %s, keeps the view through a new extent, overview or size', (_, moves) => {
      const actor = sized();
      show(actor, chart(400, 300));
      for (const move of moves) actor.send(move);
      const moved = viewport(actor);
      expect(moved).not.toEqual(fitOf(800, 600, chart(400, 300)));
      show(actor, chart(1600, 300), 'a');
      actor.send({ type: 'canvas.paneSized', width: 1200, height: 900 });
      expect(viewport(actor)).toBe(moved);
    });

    it('frames a found state once a layout shows it (its compounds were being opened), and not before', () => {
      const actor = sized();
      show(actor, chart(400, 300));
      actor.send({ type: 'canvas.find', id: 'hidden' });
      expect(viewport(actor)).toEqual(fitOf(800, 600, chart(400, 300)));
      const opened = chart(2000, 1500);
      opened.nodes.hidden = { ...opened.nodes.first!, id: 'hidden', x: 1800, y: 1400 };
      show(actor, opened);
      const v = viewport(actor);
      // The state's centre (1850, 1430) is at the stage's centre, zoomed in from the whole chart's fit.
      expect(v.x + 1850 * v.zoom).toBeCloseTo(400);
      expect(v.y + 1430 * v.zoom).toBeCloseTo(300);
      expect(v.zoom).toBeGreaterThan(fitOf(800, 600, opened).zoom);
      // Framed once: the next layout leaves the view the person now has.
      show(actor, chart(400, 300));
      expect(viewport(actor)).toBe(v);
    });

    it('frames a picked box at the stage centre with room around it', () => {
      const actor = sized();
      show(actor, chart(2000, 1500));
      actor.send({ type: 'canvas.frame', box: { x: 1000, y: 700, width: 100, height: 60 } });
      const v = viewport(actor);
      expect(v.x + 1050 * v.zoom).toBeCloseTo(400);
      expect(v.y + 730 * v.zoom).toBeCloseTo(300);
      expect(v.zoom).toBeGreaterThan(fitOf(800, 600, chart(2000, 1500)).zoom);
    });

    it('fits a fresh picture (a version or diff in place of the live chart, or back) even after the person moved', () => {
      const actor = sized();
      show(actor, chart(400, 300));
      actor.send({ type: 'canvas.zoomAt', factor: 2, x: 0, y: 0 });
      const review = chart(1600, 900);
      actor.send({ type: 'canvas.laidOut', layout: review, overview: 'review', fresh: true });
      expect(viewport(actor)).toEqual(fitOf(800, 600, review));
    });

    it("Fit fits the newest layout and makes the view the fit's again", () => {
      const actor = sized();
      show(actor, chart(400, 300));
      actor.send({ type: 'canvas.zoomAt', factor: 2, x: 0, y: 0 });
      show(actor, chart(1600, 300));
      actor.send({ type: 'canvas.fit' });
      expect(viewport(actor)).toEqual(fitOf(800, 600, chart(1600, 300)));
      actor.send({ type: 'canvas.paneSized', width: 1200, height: 900 });
      expect(viewport(actor)).toEqual(fitOf(1200, 900, chart(1600, 300)));
    });
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
