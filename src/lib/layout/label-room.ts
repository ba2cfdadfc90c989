import type { Box } from './types.ts';

/**
 * How far the transition labels can grow, each about its own centre, before any two of
 * them touch: the diagram grows labels toward the readable floor only within this, so
 * a grown label never covers another. Pairs that already overlap at their own size are
 * left out (growing changes nothing there). Past `limit` labels the answer is 1 (no
 * growth), keeping the pairwise check off big charts.
 */
export function labelGrowthRoom(labels: readonly Box[], cap: number, limit = 400): number {
  if (labels.length > limit) return 1;
  let room = cap;
  for (let i = 0; i < labels.length; i++) {
    const a = labels[i] as Box;
    for (let j = i + 1; j < labels.length; j++) {
      const b = labels[j] as Box;
      const dx = Math.abs(a.x + a.width / 2 - (b.x + b.width / 2));
      const dy = Math.abs(a.y + a.height / 2 - (b.y + b.height / 2));
      // They touch at scale s when both gaps close: apart while either one is open.
      const touch = Math.max(dx / ((a.width + b.width) / 2), dy / ((a.height + b.height) / 2));
      if (touch >= 1 && touch < room) room = touch;
    }
  }
  return Math.max(1, room);
}
