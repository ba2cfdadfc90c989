import { describe, expect, it } from 'vitest';
import { versionDiff } from '../../../src/lib/canvas-ops/version-diff.ts';
import { renameOps } from '../../../src/lib/canvas-ops/index.ts';
import { collapsedFor, collapseView } from '../../../src/lib/layout/collapse.ts';
import { reviewShown } from '../../../src/lib/layout/review-collapse.ts';
import { applyOps } from '../../../src/lib/model/index.ts';
import { loadExample } from '../../../src/features/canvas/examples.ts';

/** A version or diff on the main canvas is collapsed as the live chart is, changes kept open. */

const room = loadExample('room');
if (!room) throw new Error('the room example is missing');
const idOf = (key: string) => Object.values(room.states).find((s) => s.key === key)?.id ?? '';
const PANE = { width: 880, height: 740 };

describe('reviewShown', () => {
  it('collapses a version as the live chart is collapsed in the same pane', () => {
    const shown = reviewShown(room, undefined, PANE);
    const live = collapsedFor(room, { opened: [], closed: [], pane: PANE });
    expect(live.size).toBeGreaterThan(0);
    expect(shown).toEqual(collapseView(room, live));
    expect(Object.keys(shown.hidden)).toEqual([idOf('open')]);
  });

  it('keeps open every compound that holds a change, so no change is hidden', () => {
    const renamed = applyOps(room, renameOps(room, idOf('renaming'), 'retitling'));
    const diff = versionDiff(room, renamed);
    const shown = reviewShown(diff.union, diff.marks, PANE);
    expect(shown.view.states[idOf('renaming')]).toBeDefined();
    for (const key of ['open', 'admin']) expect(shown.hidden[idOf(key)]).toBeUndefined();
    // Compounds without changes still collapse.
    expect(shown.hidden[idOf('invites')]).toBeGreaterThan(0);
  });

  it('collapses nothing for the pane before the pane is measured', () => {
    expect(reviewShown(room, undefined, null).hidden).toEqual({});
  });
});
