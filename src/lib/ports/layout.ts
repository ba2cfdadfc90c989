import type { Layout, LayoutHints } from '../layout/types.ts';
import type { MachineDefinition } from '../model/types.ts';

/**
 * The layout port: a definition in, a positioned diagram out. In the browser it runs
 * elkjs in a Web Worker (src/features/canvas/layout-port.ts, started by the layout machine's engine actor); in Node (tests,
 * bench) the same pure function runs in-process. Never throws: a failure is a result.
 */
export interface LayoutRequest {
  definition: MachineDefinition;
  /** The previous layout's sizes and order, so small edits keep the picture still. */
  hints: LayoutHints | null;
  /** The diagram pane's width / height, when known: a chart far wider or taller may be turned (layout/direction.ts). */
  aspect?: number | null;
}

export type LayoutResult = { ok: true; layout: Layout } | { ok: false; message: string };

export type LayoutPort = (request: LayoutRequest) => Promise<LayoutResult>;

/** Text width in px for a label class; the browser measures with a canvas, Node estimates. */
export type TextMeasure = (text: string, kind: 'state' | 'edge') => number;
