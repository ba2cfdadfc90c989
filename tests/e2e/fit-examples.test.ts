import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Json } from '../../src/adapters/supabase/database.types.ts';
import { EXAMPLE_NAMES, loadExample } from '../../src/features/canvas/examples.ts';
import { useBrowserApp } from './harness.ts';
import { signUpPerson } from './people.ts';

/**
 * Fit must leave every bundled example readable in the machine page's diagram pane with
 * the side panel collapsed (the canvas alone), at 1280×800 and 1600×1000:
 * every transition label shown is drawn at
 * least 10 px tall on screen. A chart too big for that opens as Fit's overview, its
 * compounds collapsed to a box that counts the states inside (collapse.ts `fitCollapsed`),
 * and then every label it shows is drawn. No text leaves its state's box, no two state
 * boxes overlap, every state shown lies inside the pane, and names are at least 8 px tall.
 */

const app = useBrowserApp({ timeout: 180_000 });

const NAME_FLOOR_PX = 8;
const ZOOM_FLOOR = NAME_FLOOR_PX / (13 * 4);
/** The smallest a transition label may be drawn on screen. */
const LABEL_FLOOR_PX = 10;

interface Facts {
  direction: string;
  zoom: number;
  pane: { width: number; height: number };
  states: number;
  /** Compounds shown collapsed (Fit's overview). */
  collapsed: number;
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
      collapsed: document.querySelectorAll('.st-collapsed').length,
      outside,
      smallest,
    };
  });
}

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1600, height: 1000 },
];

/** A person who owns a project with every bundled example, and the machines' ids, state counts and initial states. */
async function examplesProject() {
  const owner = await signUpPerson('fit', 'Fitter');
  const { data: project, error } = await owner.client
    .from('projects')
    .insert({ name: 'Examples' })
    .select('id')
    .single();
  if (error) throw error;
  const machines: { name: string; id: string; states: number; initial: string }[] = [];
  for (const name of EXAMPLE_NAMES) {
    const definition = loadExample(name);
    if (!definition) throw new Error(`no example ${name}`);
    const { data, error: insertError } = await owner.client
      .from('machines')
      .insert({ project_id: project.id, name, definition: definition as unknown as Json })
      .select('id')
      .single();
    if (insertError) throw insertError;
    const initial = definition.states[definition.states[definition.root]?.initial ?? '']?.key ?? '';
    machines.push({ name, id: data.id, states: Object.keys(definition.states).length, initial });
  }
  return { owner, projectId: project.id, machines };
}

/** Opens each machine, fits it, and reads what Fit left on screen. */
async function fitEach(page: Page, projectId: string, machines: { name: string; id: string }[]) {
  const seen: Record<string, Facts> = {};
  for (const machine of machines) {
    await page.goto(`${app.url}/p/${projectId}/m/${machine.id}`);
    await page.locator('[data-sync="synced"]').waitFor({ timeout: 60_000 });
    await page.locator('.st').first().waitFor({ timeout: 60_000 });
    await page.locator('.machine-dock[data-open="none"]').waitFor();
    // The picture is final: no layout under way (a chart may be laid out again for the pane).
    await page.locator('.canvas-stage[data-layout="ready"]').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Zoom to fit' }).click();
    seen[machine.name] = await settled(page);
  }
  return seen;
}

/**
 * What Fit left once the picture has settled: the pane's size reaches the layout a moment
 * after the first picture (a ResizeObserver reports it), and a chart laid out again for
 * it is fitted again; read after each painted frame until two reads agree.
 */
async function settled(page: Page): Promise<Facts> {
  const key = (f: Facts) => JSON.stringify([f.zoom, f.states, f.collapsed, f.pane, f.outside, f.direction]);
  let last = await facts(page);
  for (;;) {
    await page.locator('.canvas-stage[data-layout="ready"]').waitFor({ timeout: 60_000 });
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const next = await facts(page);
    if (key(next) === key(last)) return next;
    last = next;
  }
}

describe('Fit on every bundled example, the canvas alone', () => {
  it('on a phone, keeps every name readable and shows where the chart starts; the rest is a pan away', async () => {
    const { owner, projectId, machines } = await examplesProject();
    const { context, page } = await app.signIn(owner.email, { viewport: { width: 390, height: 844 } });
    const seen = await fitEach(page, projectId, machines);
    for (const machine of machines) {
      const f = seen[machine.name];
      if (!f) throw new Error(`no facts for ${machine.name}`);
      const at = `${machine.name} at 390x844 (zoom ${f.zoom.toFixed(3)})`;
      expect(f.smallest.px, `${at}: "${f.smallest.name}" drawn this tall`).toBeGreaterThanOrEqual(NAME_FLOOR_PX);
      expect(f.outside, `${at}: the initial state in view`).not.toContain(machine.initial);
      expect(f.smallestLabel, `${at}: smallest label on screen`).toBeGreaterThanOrEqual(LABEL_FLOOR_PX);
      expect(f.overflowing, `${at}: text out of its box`).toEqual([]);
      expect(f.overlapping, `${at}: overlapping state boxes`).toEqual([]);
    }
    await context.close();
  }, 300_000);

  it('draws every label shown at 10 px or more, as an overview where the chart is too big', async () => {
    const { owner, projectId, machines } = await examplesProject();
    for (const size of SIZES) {
      const { context, page } = await app.signIn(owner.email, { viewport: size });
      // The canvas alone: the side panel collapsed to its strip first (remembered from then
      // on), so each example opens in the pane it is read in.
      await page.goto(`${app.url}/p/${projectId}/m/${machines[0]?.id ?? ''}`);
      await page.getByRole('button', { name: 'Collapse panel' }).click();
      await page.locator('.machine-dock[data-open="none"]').waitFor();
      const seen = await fitEach(page, projectId, machines);
      console.log(
        `${size.width}x${size.height}, canvas alone:\n` +
          Object.entries(seen)
            .map(
              ([n, f]) =>
                `${n}: ${f.direction}, zoom ${f.zoom.toFixed(3)}, pane ${f.pane.width}x${f.pane.height}, states ${f.states}, collapsed ${f.collapsed}, ` +
                `labels drawn ${f.labelsDrawn}/${f.labels} (smallest ${f.smallestLabel.toFixed(1)} px), smallest name ${f.smallest.px.toFixed(1)} px, ` +
                `text out of its box ${f.overflowing.length}, overlapping boxes ${f.overlapping.length}`,
            )
            .join('\n'),
      );
      for (const machine of machines) {
        const f = seen[machine.name];
        if (!f) throw new Error(`no facts for ${machine.name}`);
        const at = `${machine.name} at ${size.width}x${size.height}`;
        // Everything shows, or the overview: fewer states, some compound collapsed to a count.
        if (f.states < machine.states)
          expect(f.collapsed, `${at}: states hidden by no collapsed box`).toBeGreaterThan(0);
        else expect(f.states, at).toBe(machine.states);
        expect(f.outside, `${at}: states outside the pane`).toEqual([]);
        expect(f.zoom, `${at}: zoom at Fit`).toBeGreaterThanOrEqual(ZOOM_FLOOR);
        expect(f.smallest.px, `${at}: "${f.smallest.name}" drawn this tall`).toBeGreaterThanOrEqual(NAME_FLOOR_PX);
        expect(f.labelsDrawn, `${at}: labels drawn`).toBe(f.labels);
        expect(f.smallestLabel, `${at}: smallest label on screen`).toBeGreaterThanOrEqual(LABEL_FLOOR_PX);
        expect(f.overflowing, `${at}: text out of its box`).toEqual([]);
        expect(f.overlapping, `${at}: overlapping state boxes`).toEqual([]);
      }
      await context.close();
    }
  }, 300_000);
});
