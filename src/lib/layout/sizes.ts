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
  /** Each further line of a wrapped transition label. */
  edgeLabelLine: 14,
  /** Room either side of a label's text inside its pill (and for its event, drawn bolder than measured). */
  edgeLabelPad: 16,
  /** Space between the regions of a parallel state. */
  regionGap: 12,
} as const;

/** A state's tags as one line (`busy · loading`), or null without tags. */
export function tagLine(s: StateNode): string | null {
  return s.tags.length > 0 ? s.tags.join(' · ') : null;
}

/** How many lines a state shows under its name: its tag line, then its detail lines. */
export const lineCount = (s: StateNode): number => detailLines(s).length + (tagLine(s) === null ? 0 : 1);

/** Lines shown inside an atomic state under its name (and tag line): entry, exit, invoke. */
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
export function leafSize(
  def: MachineDefinition,
  s: StateNode,
  measure: TextMeasure,
  hints: LayoutHints | null,
): { width: number; height: number } {
  if (s.type === 'history') return { width: GEOMETRY.history, height: GEOMETRY.history };
  // Tags get a line of their own under the name: drawn in a corner they covered short names.
  const tags = tagLine(s);
  const lines = tags === null ? detailLines(s) : [tags, ...detailLines(s)];
  // A compound shown without its children is collapsed (collapse.ts): a line says what it holds.
  if (s.type === 'compound' || s.type === 'parallel') lines.push(COLLAPSED_CAPTION);
  const text = Math.max(measure(stateTitle(def, s.id), 'state'), ...lines.map((l) => measure(l, 'edge')));
  const needed = snap(text + 2 * GEOMETRY.pad);
  const height = GEOMETRY.titleHeight + lines.length * GEOMETRY.lineHeight + (lines.length > 0 ? 8 : 0);
  const previous = hints?.sizes[s.id];
  const width =
    previous && previous.width >= needed && previous.width - needed <= 2 * GEOMETRY.widthStep ? previous.width : needed;
  return { width, height };
}

/** The widest caption of a collapsed state (`1,000 states inside`), for its size. */
export const COLLAPSED_CAPTION = '9,999 states inside';

/** Header height of a compound/parallel state: its name plus its tag and detail lines. */
export function headerHeight(s: StateNode): number {
  return GEOMETRY.titleHeight + lineCount(s) * GEOMETRY.lineHeight;
}

/**
 * How far a transition label may grow about its centre toward the readable floor when
 * zoomed out (Diagram.tsx, readability.ts): ELK is handed each label this much larger,
 * so labels stacked between the same states leave each other that room.
 */
export const LABEL_ROOM = 1.35;

/**
 * The factor ELK's label box is larger than the pill, per axis. Left to right, labels
 * stack in columns (the full room down) and meet across only now and then: a little
 * room across keeps wide charts narrow (the session overview fits its pane 7% larger).
 */
export function labelRoom(direction: 'RIGHT' | 'DOWN'): { x: number; y: number } {
  return direction === 'RIGHT' ? { x: 1.15, y: LABEL_ROOM } : { x: LABEL_ROOM, y: LABEL_ROOM };
}
