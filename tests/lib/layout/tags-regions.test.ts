import ELK from 'elkjs/lib/elk.bundled.js';
import { describe, expect, it } from 'vitest';
import {
  estimateText,
  GEOMETRY,
  layoutDefinition,
  leafSize,
  tagLine,
  type Box,
} from '../../../src/lib/layout/index.ts';
import { headerHeight } from '../../../src/lib/layout/sizes.ts';
import { importXState } from '../../../src/lib/model/index.ts';

/**
 * Tags were drawn over state names (in the box's top corner, where a
 * short name already sat) and the regions of a parallel state touched, so their dashed
 * borders drew over each other. Tags now have a line of their own, which the box's size
 * makes room for, and regions keep a gap.
 */
const elk = new ELK();

const PLAYER = importXState(
  {
    id: 'player',
    type: 'parallel',
    states: {
      playback: {
        initial: 'paused',
        states: {
          paused: { tags: ['idle', 'resumable'], on: { PLAY: 'playing' } },
          playing: { tags: ['busy'], on: { PAUSE: 'paused' } },
        },
      },
      volume: {
        initial: 'on',
        states: { on: { tags: ['audible'], on: { MUTE: 'muted' } }, muted: { on: { UNMUTE: 'on' } } },
      },
      network: {
        initial: 'online',
        tags: ['watched'],
        states: { online: { on: { DROP: 'offline' } }, offline: { on: { RESTORE: 'online' } } },
      },
    },
  },
  { name: 'player' },
);

const byKey = (key: string) => {
  const s = Object.values(PLAYER.states).find((x) => x.key === key);
  if (!s) throw new Error(`no state ${key}`);
  return s;
};

/** Vertical distance between two boxes (negative when they overlap or touch vertically). */
const gap = (a: Box, b: Box): number =>
  Math.max(b.y - (a.y + a.height), a.y - (b.y + b.height), b.x - (a.x + a.width), a.x - (b.x + b.width));

describe('tags and parallel regions', () => {
  it('gives a tagged leaf a line for its tags, wide enough for them', () => {
    const paused = byKey('paused');
    const muted = byKey('muted');
    expect(tagLine(paused)).toBe('idle · resumable');
    const tagged = leafSize(PLAYER, paused, estimateText, null);
    const plain = leafSize(PLAYER, muted, estimateText, null);
    expect(tagged.height).toBe(plain.height + GEOMETRY.lineHeight + 8);
    expect(tagged.width).toBeGreaterThanOrEqual(estimateText('idle · resumable', 'edge') + 2 * GEOMETRY.pad);
  });

  it("puts a compound state's tags in its header, above its children", async () => {
    const network = byKey('network');
    expect(headerHeight(network)).toBe(GEOMETRY.titleHeight + GEOMETRY.lineHeight);
    const layout = await layoutDefinition(elk, PLAYER, estimateText);
    const box = layout.nodes[network.id];
    for (const child of network.children)
      expect(layout.nodes[child]?.y).toBeGreaterThanOrEqual((box?.y ?? 0) + headerHeight(network));
  });

  it('keeps a gap between the regions of a parallel state', async () => {
    const layout = await layoutDefinition(elk, PLAYER, estimateText);
    const regions = PLAYER.states[PLAYER.root]?.children.map((id) => layout.nodes[id] as Box) ?? [];
    expect(regions).toHaveLength(3);
    for (let i = 0; i < regions.length; i++) {
      for (let j = i + 1; j < regions.length; j++)
        expect(gap(regions[i] as Box, regions[j] as Box)).toBeGreaterThanOrEqual(GEOMETRY.regionGap - 0.5);
    }
  });
});
