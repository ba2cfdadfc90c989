import type { MachineDefinition, StateNode } from '../model/types.ts';
import type { TextMeasure } from '../ports/layout.ts';
import { stateTitle } from './labels.ts';
import type { LayoutHints } from './types.ts';

/** Geometry constants shared by the layout input and the SVG view. */
export const GEOMETRY = {
  minWidth: 88,
  /** Widths snap up to this step, so most renames keep a state's size (and its neighbours). */
  widthStep: 24,
  titleHeight: 36,
  lineHeight: 16,
  /** Left padding of compound states: room for the initial marker. */
  padLeft: 36,
  pad: 16,
  history: 32,
  edgeLabelHeight: 16,
  edgeLabelPad: 8,
} as const;

/** Lines shown inside an atomic state under its name: entry, exit, invoke. */
export function detailLines(s: StateNode): string[] {
  const lines: string[] = [];
  for (const a of s.entry) lines.push(`entry / ${a.type}`);
  for (const a of s.exit) lines.push(`exit / ${a.type}`);
  for (const i of s.invoke) lines.push(`invoke ${i.src}`);
  return lines;
}

const snap = (w: number): number => Math.max(GEOMETRY.minWidth, Math.ceil(w / GEOMETRY.widthStep) * GEOMETRY.widthStep);

/**
 * The size of a leaf (atomic, final, history). Compound and parallel states get their
 * size from ELK. With hints, a state keeps its previous width while its text still fits
 * and is not much narrower: renaming `idle` to `ready` moves nothing.
 */
export function leafSize(def: MachineDefinition, s: StateNode, measure: TextMeasure, hints: LayoutHints | null): { width: number; height: number } {
  if (s.type === 'history') return { width: GEOMETRY.history, height: GEOMETRY.history };
  const lines = detailLines(s);
  const text = Math.max(measure(stateTitle(def, s.id), 'state'), ...lines.map((l) => measure(l, 'edge')));
  const needed = snap(text + 2 * GEOMETRY.pad);
  const height = GEOMETRY.titleHeight + lines.length * GEOMETRY.lineHeight + (lines.length > 0 ? 8 : 0);
  const previous = hints?.sizes[s.id];
  const width = previous && previous.width >= needed && previous.width - needed <= 2 * GEOMETRY.widthStep ? previous.width : needed;
  return { width, height };
}

/** Header height of a compound/parallel state: its name plus its detail lines. */
export function headerHeight(s: StateNode): number {
  const lines = detailLines(s).length;
  return GEOMETRY.titleHeight + lines * GEOMETRY.lineHeight;
}
