import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/adapters/supabase/database.types.ts';
import { EXAMPLE_NAMES, loadExample } from '../../src/features/canvas/examples.ts';
import { useBrowserApp } from './harness.ts';
import { signUpPerson } from './people.ts';

/**
 * Issue 10, big charts: Fit must leave every bundled example readable in the machine
 * page's diagram pane at 1280×800 (the default "Both" view). The session statechart was
 * laid out 7:1, left to right, and at Fit its names were about 6 px tall.
 *
 * The floor: a state's name must be drawn at least 8 px tall on screen (its computed
 * font size times the diagram's scale), about the smallest size at which its letters are
 * still told apart. Zoomed far out, names grow up to four times their 13 px (Diagram.tsx),
 * so that takes a zoom of at least 8 / (13 × 4) ≈ 0.154: checked too, so a later change
 * to the names' growth cannot hide a chart shrunk to a speck.
 * And Fit shows all of it: every state's box lies inside the pane.
 */

const app = useBrowserApp({ timeout: 180_000 });

const NAME_FLOOR_PX = 8;
const ZOOM_FLOOR = NAME_FLOOR_PX / (13 * 4);
/** The smallest a transition label may be drawn on screen (canvas-design.md, "Drawing for reading"). */
const LABEL_FLOOR_PX = 10;
/** The zoom below which names grow (Diagram.tsx `FAR`). */
const NAMES_GROW = 9 / 13;

interface Facts {
  direction: string;
  zoom: number;
  pane: { width: number; height: number };
  states: number;
  outside: string[];
  smallest: { name: string; px: number };
  /** Transition labels in the chart, and how many are drawn (shown, not display:none). */
  labels: number;
  labelsDrawn: number;
  /** The smallest drawn label's text height on screen, in px (Infinity with none drawn). */
  smallestLabel: number;
  /** Texts that leave their state's box: `state: text`. */
  overflowing: string[];
  /** Pairs of state boxes that overlap, neither inside the other. */
  overlapping: string[];
}

/** What Fit left on screen: the zoom, the states outside the pane, the smallest name. */
function facts(page: Page): Promise<Facts> {
  return page.evaluate(() => {
    const stage = document.querySelector('.canvas-stage');
    const view = document.querySelector<SVGGElement>('.diagram-svg g.viewport');
    if (!stage || !view) throw new Error('no diagram pane');
    const pane = stage.getBoundingClientRect();
    const zoom = view.transform.baseVal.consolidate()?.matrix.a ?? 0;
    const outside: string[] = [];
    let smallest = { name: '', px: Infinity };
    for (const st of Array.from(document.querySelectorAll<SVGGElement>('.st'))) {
      const box = (st.querySelector('.st-box') ?? st).getBoundingClientRect();
      const name = st.querySelector<SVGTextElement>('.st-name');
      const label = name?.textContent ?? '?';
      if (
        box.left < pane.left - 0.5 ||
        box.right > pane.right + 0.5 ||
        box.top < pane.top - 0.5 ||
        box.bottom > pane.bottom + 0.5
      )
        outside.push(label);
      if (!name) continue;
      const px = parseFloat(getComputedStyle(name).fontSize) * (name.getScreenCTM()?.a ?? 0);
      if (px < smallest.px) smallest = { name: label, px };
    }
    // Transition labels: drawn or not, and how tall their text is on screen.
    const labelEls = Array.from(document.querySelectorAll<SVGGElement>('.tr-label'));
    let labelsDrawn = 0;
    let smallestLabel = Infinity;
    for (const l of labelEls) {
      const text = l.querySelector<SVGTextElement>('text');
      if (!text || getComputedStyle(l).display === 'none' || l.getBoundingClientRect().width === 0) continue;
      labelsDrawn += 1;
      const px = parseFloat(getComputedStyle(text).fontSize) * (text.getScreenCTM()?.a ?? 0);
      smallestLabel = Math.min(smallestLabel, px);
    }
    // Text that leaves its state's box, and state boxes that overlap (neither holding the other).
    const overflowing: string[] = [];
    const boxes: { path: string; r: DOMRect }[] = [];
    for (const st of Array.from(document.querySelectorAll<SVGGElement>('.st[data-state-path]'))) {
      const box = st.querySelector('.st-box');
      if (!box) continue;
      const r = box.getBoundingClientRect();
      const path = st.getAttribute('data-state-path') ?? '';
      boxes.push({ path, r });
      for (const t of Array.from(st.querySelectorAll<SVGTextElement>(':scope > text'))) {
        if (getComputedStyle(t).display === 'none') continue;
        const b = t.getBoundingClientRect();
        if (b.width === 0) continue;
        if (b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5)
          overflowing.push(`${path}: ${t.textContent ?? ''}`);
      }
    }
    const overlapping: string[] = [];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        if (!a || !b || a.path.startsWith(`${b.path}.`) || b.path.startsWith(`${a.path}.`)) continue;
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (w > 1 && h > 1) overlapping.push(`${a.path} / ${b.path}`);
      }
    return {
      labels: labelEls.length,
      labelsDrawn,
      smallestLabel,
      overflowing,
      overlapping,
      direction: stage.getAttribute('data-direction') ?? '',
      zoom,
      pane: { width: pane.width, height: pane.height },
      states: document.querySelectorAll('.st').length,
      outside,
      smallest,
    };
  });
}

describe('Fit on every bundled example at 1280×800', () => {
  it('leaves names readable and every state inside the diagram pane', async () => {
    const owner = await signUpPerson('fit', 'Fitter');
    const { data: project, error } = await owner.client
      .from('projects')
      .insert({ name: 'Examples' })
      .select('id')
      .single();
    if (error) throw error;
    const machines: { name: string; id: string; states: number }[] = [];
    for (const name of EXAMPLE_NAMES) {
      const definition = loadExample(name);
      if (!definition) throw new Error(`no example ${name}`);
      const { data, error: insertError } = await owner.client
        .from('machines')
        .insert({ project_id: project.id, name, definition: definition as unknown as Json })
        .select('id')
        .single();
      if (insertError) throw insertError;
      machines.push({ name, id: data.id, states: Object.keys(definition.states).length });
    }

    const { page } = await app.signIn(owner.email, { viewport: { width: 1280, height: 800 } });
    const seen: Record<string, Facts> = {};
    for (const machine of machines) {
      await page.goto(`${app.url}/p/${project.id}/m/${machine.id}`);
      await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
      await page.locator('.st').first().waitFor({ timeout: 60_000 });
      // The picture is final: no layout under way (a chart far wider than the pane is laid out twice).
      await page.locator('.canvas-stage[data-layout="ready"]').waitFor({ timeout: 60_000 });
      await page.getByRole('button', { name: 'Zoom to fit' }).click();
      seen[machine.name] = await facts(page);
    }
    console.log(
      Object.entries(seen)
        .map(
          ([n, f]) =>
            `${n}: ${f.direction}, zoom ${f.zoom.toFixed(3)}, smallest name ${f.smallest.px.toFixed(1)} px, pane ${f.pane.width}x${f.pane.height}, ` +
            `labels drawn ${f.labelsDrawn}/${f.labels} (smallest ${f.smallestLabel.toFixed(1)} px), ` +
            `text out of its box ${f.overflowing.length}, overlapping boxes ${f.overlapping.length}`,
        )
        .join('\n'),
    );
    for (const machine of machines) {
      const f = seen[machine.name];
      expect(f?.states, machine.name).toBe(machine.states);
      expect(f?.outside, `${machine.name}: states outside the pane`).toEqual([]);
      expect(f?.zoom, `${machine.name}: zoom at Fit`).toBeGreaterThanOrEqual(ZOOM_FLOOR);
      expect(f?.smallest.px, `${machine.name}: "${f?.smallest.name}" drawn this tall`).toBeGreaterThanOrEqual(
        NAME_FLOOR_PX,
      );
      // Readable at Fit: a label is drawn at least 10 px tall or not drawn at all
      // (its edge then says so), no text leaves its box, no two state boxes overlap.
      if (f && f.labelsDrawn > 0)
        expect(f.smallestLabel, `${machine.name}: smallest label on screen`).toBeGreaterThanOrEqual(LABEL_FLOOR_PX);
      // Boxes are sized to their measured text: none leaves its box while names are drawn at
      // their size. Further out names grow to stay legible and may spill (printed above) until
      // Fit shows big charts as an overview.
      if (f && f.zoom >= NAMES_GROW) expect(f.overflowing, `${machine.name}: text out of its box`).toEqual([]);
      expect(f?.overlapping, `${machine.name}: overlapping state boxes`).toEqual([]);
    }
  }, 240_000);
});
