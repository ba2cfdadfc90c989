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
});
