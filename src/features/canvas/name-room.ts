import { nameGrowthRoom } from '../../lib/layout/readability.ts';
import type { LayoutNode } from '../../lib/layout/types.ts';
import type { TextMeasure } from '../../lib/ports/layout.ts';
import { canvasMeasure } from './measure.ts';

let measure: TextMeasure | null = null;

/** How far a state's name may grow far out and stay in its box (readability.ts), measured with the page's font. */
export function nameRoom(node: LayoutNode, name: string, compound: boolean): number {
  measure ??= canvasMeasure();
  return nameGrowthRoom(node, measure(name, 'state'), compound);
}
