import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { MIN_VISIBLE, visibleStage } from '../../machines/open-machine/canvas-fit.ts';
import { canvasMachine } from '../../machines/open-machine/canvas.machine.ts';
import type { Box } from '../../src/lib/layout/types.ts';
import { chart } from './canvas-charts.ts';

/**
 * Framing what lies under the phone's bottom sheet: the view measures how much of the
 * stage's foot the open sheet covers (`canvas.stageCovered`), and a framed box (a thread's
 * anchor, a found state) lands in the part of the stage above it.
 */

const PHONE = { width: 390, height: 700 };

function phone() {
  const actor = createActor(canvasMachine, { input: { canEdit: true } }).start();
  actor.send({ type: 'canvas.paneSized', ...PHONE });
  actor.send({ type: 'canvas.laidOut', layout: chart(4000, 3000, { x: 3000, y: 2500 }), overview: '' });
  return actor;
}

/** Where a chart point lands on the stage. */
const onStage = (actor: ReturnType<typeof phone>, x: number, y: number) => {
  const v = actor.getSnapshot().context.viewport;
  return { x: x * v.zoom + v.x, y: y * v.zoom + v.y };
};

const PIN: Box = { x: 1980, y: 1478, width: 28, height: 22 };

describe('canvas framing under a bottom sheet', () => {
  it('frames a box at the centre of the whole stage while nothing covers it', () => {
    const actor = phone();
    actor.send({ type: 'canvas.frame', box: PIN });
    const centre = onStage(actor, PIN.x + PIN.width / 2, PIN.y + PIN.height / 2);
    expect(centre.x).toBeCloseTo(PHONE.width / 2);
    expect(centre.y).toBeCloseTo(PHONE.height / 2);
  });

  it('frames a box at the centre of the part above the sheet, and keeps it there while the sheet is open', () => {
    const actor = phone();
    actor.send({ type: 'canvas.stageCovered', bottom: 320 });
    expect(actor.getSnapshot().context.covered).toBe(320);
    actor.send({ type: 'canvas.frame', box: PIN });
    const top = onStage(actor, PIN.x, PIN.y);
    const bottom = onStage(actor, PIN.x + PIN.width, PIN.y + PIN.height);
    // Wholly in the 380 px above the sheet, centred there.
    expect(top.y).toBeGreaterThan(0);
    expect(bottom.y).toBeLessThan(PHONE.height - 320);
    expect((top.y + bottom.y) / 2).toBeCloseTo((PHONE.height - 320) / 2);
    expect((top.x + bottom.x) / 2).toBeCloseTo(PHONE.width / 2);
    // The person chose the view: a new layout leaves it be.
    const framed = actor.getSnapshot().context.viewport;
    actor.send({ type: 'canvas.laidOut', layout: chart(400, 300), overview: '' });
    expect(actor.getSnapshot().context.viewport).toEqual(framed);
  });

  it('frames a found state above the sheet too', () => {
    const actor = phone();
    actor.send({ type: 'canvas.stageCovered', bottom: 300 });
    actor.send({ type: 'canvas.find', id: 'first' });
    const centre = onStage(actor, 3050, 2530);
    expect(centre.y).toBeCloseTo((PHONE.height - 300) / 2);
  });

  it('a lowered sheet covers nothing again', () => {
    const actor = phone();
    actor.send({ type: 'canvas.stageCovered', bottom: 320 });
    actor.send({ type: 'canvas.stageCovered', bottom: 0 });
    actor.send({ type: 'canvas.frame', box: PIN });
    expect(onStage(actor, PIN.x + PIN.width / 2, PIN.y + PIN.height / 2).y).toBeCloseTo(PHONE.height / 2);
  });

  it('keeps at least MIN_VISIBLE px in view, and takes a measure that is no number as covering nothing', () => {
    expect(visibleStage(PHONE, 10_000)).toEqual({ width: 390, height: MIN_VISIBLE });
    expect(visibleStage(PHONE, -40)).toEqual(PHONE);
    expect(visibleStage({ width: 300, height: 90 }, 60)).toEqual({ width: 300, height: 90 });
    const actor = phone();
    actor.send({ type: 'canvas.stageCovered', bottom: Number.NaN });
    expect(actor.getSnapshot().context.covered).toBe(0);
    actor.send({ type: 'canvas.stageCovered', bottom: 10_000 });
    actor.send({ type: 'canvas.frame', box: PIN });
    const centre = onStage(actor, PIN.x + PIN.width / 2, PIN.y + PIN.height / 2);
    expect(centre.y).toBeCloseTo(MIN_VISIBLE / 2);
  });

  it('frames a tapped pin above the sheet it opens only when the sheet covers it', () => {
    // A small chart: fitted whole, so the view stays the fit's until the person moves it.
    const actor = createActor(canvasMachine, { input: { canEdit: true } }).start();
    actor.send({ type: 'canvas.paneSized', ...PHONE });
    actor.send({ type: 'canvas.laidOut', layout: chart(300, 600), overview: '' });
    const low: Box = { x: 150, y: 560, width: 28, height: 22 };
    const high: Box = { x: 150, y: 20, width: 28, height: 22 };
    // A pin near the top, tapped: the sheet does not cover it, the view stays the fitted one.
    actor.send({ type: 'canvas.keepInView', box: high });
    const highTop = onStage(actor, high.x, high.y).y;
    actor.send({ type: 'canvas.stageCovered', bottom: 400 });
    // The untouched fit refits above the sheet; the pin shows there, so it is not framed again.
    expect(onStage(actor, high.x, high.y + high.height).y).toBeLessThanOrEqual(PHONE.height - 400);
    expect(actor.getSnapshot().context.fit.touched).toBe(false);
    expect(highTop).toBeGreaterThanOrEqual(0);
    // A pin near the foot, tapped with the view moved: the sheet covers it, it is framed above.
    actor.send({ type: 'canvas.stageCovered', bottom: 0 });
    actor.send({ type: 'canvas.zoomAt', factor: 3, x: 195, y: 350 });
    const zoomed = actor.getSnapshot().context.viewport;
    actor.send({ type: 'canvas.panStart' });
    actor.send({ type: 'canvas.panBy', dx: 0, dy: 350 - (low.y + 11) * zoomed.zoom - zoomed.y });
    actor.send({ type: 'canvas.panEnd' });
    expect(onStage(actor, low.x, low.y + low.height).y).toBeLessThan(PHONE.height);
    actor.send({ type: 'canvas.keepInView', box: low });
    const tapped = actor.getSnapshot().context.viewport;
    actor.send({ type: 'canvas.stageCovered', bottom: 400 });
    expect(actor.getSnapshot().context.viewport).not.toEqual(tapped);
    expect(onStage(actor, low.x, low.y + low.height).y).toBeLessThanOrEqual(PHONE.height - 400);
    expect(onStage(actor, low.x, low.y).y).toBeGreaterThanOrEqual(0);
    // Moved by the person since: a later sheet leaves the view be.
    actor.send({ type: 'canvas.panStart' });
    actor.send({ type: 'canvas.panBy', dx: 0, dy: 200 });
    actor.send({ type: 'canvas.panEnd' });
    const moved = actor.getSnapshot().context.viewport;
    actor.send({ type: 'canvas.stageCovered', bottom: 300 });
    expect(actor.getSnapshot().context.viewport).toEqual(moved);
  });

  it('fits the chart above an open sheet, and refits an untouched fit when the sheet lowers', () => {
    const actor = createActor(canvasMachine, { input: { canEdit: true } }).start();
    actor.send({ type: 'canvas.paneSized', ...PHONE });
    actor.send({ type: 'canvas.laidOut', layout: chart(200, 300), overview: '' });
    const bottomOf = () => onStage(actor, 0, 300).y;
    expect(bottomOf()).toBeGreaterThan(PHONE.height - 320);
    // The sheet rises over an untouched fit: refitted above it.
    actor.send({ type: 'canvas.stageCovered', bottom: 320 });
    expect(bottomOf()).toBeLessThanOrEqual(PHONE.height - 320);
    expect(onStage(actor, 0, 0).y).toBeGreaterThanOrEqual(0);
    // Moved, then Fit pressed with the sheet up: above it again.
    actor.send({ type: 'canvas.zoomAt', factor: 2, x: 0, y: 0 });
    actor.send({ type: 'canvas.fit' });
    expect(bottomOf()).toBeLessThanOrEqual(PHONE.height - 320);
    // Lowered: the untouched fit takes the whole stage again.
    actor.send({ type: 'canvas.stageCovered', bottom: 0 });
    expect(bottomOf()).toBeGreaterThan(PHONE.height - 320);
    // A moved view stays where it is when the sheet rises.
    actor.send({ type: 'canvas.zoomAt', factor: 1.5, x: 0, y: 0 });
    const moved = actor.getSnapshot().context.viewport;
    actor.send({ type: 'canvas.stageCovered', bottom: 320 });
    expect(actor.getSnapshot().context.viewport).toEqual(moved);
  });
});
