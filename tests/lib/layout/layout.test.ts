import ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import { describe, expect, it } from 'vitest';
import { applyOps, importXState, counterIds, type MachineDefinition } from '../../../src/lib/model/index.ts';
import {
  buildElkGraph,
  estimateText,
  hintsFrom,
  layoutDefinition,
  portId,
  routeOf,
  transitionLabel,
  WRAPPER_ID,
  type Layout,
} from '../../../src/lib/layout/index.ts';
import { generateChart } from '../../../src/lib/layout/generate.ts';

const elk = new ELK();

const chart = (): MachineDefinition =>
  importXState(
    {
      id: 'player',
      initial: 'idle',
      states: {
        idle: { on: { PLAY: { target: 'playing', guard: 'hasTrack', actions: ['start'] }, PING: { actions: 'pong' } } },
        playing: {
          type: 'parallel',
          states: {
            audio: { initial: 'on', states: { on: { on: { MUTE: 'off' } }, off: { on: { UNMUTE: 'on' } } } },
            video: {
              initial: 'hd',
              states: {
                hd: { after: { 500: 'sd' } },
                sd: { always: 'hd' },
                hist: { type: 'history', history: 'deep' },
              },
            },
          },
          on: {
            STOP: 'idle',
            RESTART: { target: 'playing', reenter: true },
            BOTH: { target: ['.audio.off', '.video.sd'] },
          },
        },
        done: { type: 'final' },
      },
    },
    { ids: counterIds('p') },
  );

const idOf = (def: MachineDefinition, key: string): string => {
  const s = Object.values(def.states).find((n) => n.key === key);
  if (!s) throw new Error(`no state ${key}`);
  return s.id;
};

const find = (g: ElkNode, id: string): ElkNode | undefined => {
  if (g.id === id) return g;
  for (const c of g.children ?? []) {
    const f = find(c, id);
    if (f) return f;
  }
  return undefined;
};

const allEdges = (g: ElkNode): { graph: string; edge: ElkExtendedEdge }[] => [
  ...(g.edges ?? []).map((edge) => ({ graph: g.id, edge })),
  ...(g.children ?? []).flatMap(allEdges),
];

describe('ELK input', () => {
  it('nests compound and parallel states, each laid out on its own with the edges between its children', () => {
    const def = chart();
    const g = buildElkGraph(def, estimateText);
    expect(g.id).toBe(WRAPPER_ID);
    expect(g.layoutOptions?.['elk.hierarchyHandling']).toBe('SEPARATE_CHILDREN');
    expect(g.layoutOptions?.['elk.algorithm']).toBe('layered');
    const root = g.children?.[0];
    expect(root?.id).toBe(def.root);
    expect(root?.children?.map((c) => c.id)).toEqual(['idle', 'playing', 'done'].map((k) => idOf(def, k)));
    const playing = find(g, idOf(def, 'playing'));
    expect(playing?.children?.map((c) => c.id)).toEqual([idOf(def, 'audio'), idOf(def, 'video')]);
    // Every compound carries the graph options itself: ELK does not inherit them.
    expect(playing?.layoutOptions?.['elk.algorithm']).toBe('layered');
    // Compound states get their size from ELK; leaves come with one; history is a small circle.
    expect(playing?.width).toBeUndefined();
    expect(playing?.layoutOptions?.['elk.padding']).toMatch(/top=\d+/);
    expect(find(g, idOf(def, 'hist'))).toMatchObject({ width: 32, height: 32 });
    expect(find(g, idOf(def, 'idle'))?.width).toBeGreaterThanOrEqual(88);
    // MUTE joins two children of `audio`: one edge in audio's graph, labelled with its id.
    const mute = Object.values(def.transitions).find((t) => t.event === 'MUTE');
    const muteEdge = allEdges(g).find((e) => e.edge.labels?.some((l) => l.id === mute?.id));
    expect(muteEdge).toMatchObject({
      graph: idOf(def, 'audio'),
      edge: { sources: [idOf(def, 'on')], targets: [idOf(def, 'off')], labels: [{ text: 'MUTE' }] },
    });
  });

  it('splits a transition into a compound at border ports: its own labelled piece sits at the common container', () => {
    const def = chart();
    const g = buildElkGraph(def, estimateText);
    const both = Object.values(def.transitions).find((t) => t.event === 'BOTH');
    if (!both) throw new Error('fixture');
    // playing -> .audio.off: from playing's `in` port to audio's `in` port (in playing's graph), then on to off.
    const route = routeOf(def, both.source, idOf(def, 'off'));
    expect(route.pieces.map((p) => [p.graph, p.source, p.target, p.own])).toEqual([
      [idOf(def, 'playing'), portId(idOf(def, 'playing'), 'in'), portId(idOf(def, 'audio'), 'in'), true],
      [idOf(def, 'audio'), portId(idOf(def, 'audio'), 'in'), idOf(def, 'off'), false],
    ]);
    const edges = allEdges(g);
    for (const p of route.pieces) expect(edges.find((e) => e.edge.id === p.id)?.graph).toBe(p.graph);
    const own = route.pieces.find((p) => p.own);
    expect(edges.find((e) => e.edge.id === own?.id)?.edge.labels).toEqual([
      expect.objectContaining({ id: both.id, text: 'BOTH' }),
    ]);
    expect(find(g, idOf(def, 'audio'))?.ports?.map((p) => p.id)).toEqual([portId(idOf(def, 'audio'), 'in')]);
    // A shared piece is one ELK edge, however many transitions take that way.
    const ids = edges.map((e) => e.edge.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('routes out of a compound to its ancestor, around a compound for its self-transition, and leaves alone', () => {
    const def = importXState({
      id: 'm',
      initial: 'a',
      states: {
        a: {
          initial: 'b',
          on: { AGAIN: 'a' },
          states: { b: { initial: 'c', states: { c: { on: { UP: '#m.a', STAY: 'c' } } } } },
        },
      },
    });
    const [a, b, c] = ['a', 'b', 'c'].map((k) => idOf(def, k)) as [string, string, string];
    // c -> a (its grandparent): out through b's border, then to a's own `out` port inside a.
    expect(routeOf(def, c, a).pieces.map((p) => [p.graph, p.source, p.target, p.own])).toEqual([
      [b, c, portId(b, 'out'), false],
      [a, portId(b, 'out'), portId(a, 'out'), true],
    ]);
    // A compound's self-transition leaves by its `out` port and comes back by its `in` port.
    expect(routeOf(def, a, a).pieces).toEqual([
      {
        id: `${portId(a, 'out')}->${portId(a, 'in')}`,
        graph: def.root,
        source: portId(a, 'out'),
        target: portId(a, 'in'),
        own: true,
      },
    ]);
    // A leaf's loop is a plain ELK self-loop, with no ports anywhere.
    expect(routeOf(def, c, c)).toEqual({
      pieces: [{ id: `${c}->${c}`, graph: b, source: c, target: c, own: true }],
      ports: [],
    });
  });

  it('gives transitions between the same two ends one ELK edge with a label each', () => {
    const def = importXState({
      id: 'm',
      initial: 'a',
      states: { a: { on: { GO: 'b', RUN: { target: 'b', guard: 'ok' } } }, b: {} },
    });
    const edges = allEdges(buildElkGraph(def, estimateText)).map((e) => e.edge);
    expect(edges).toHaveLength(1);
    expect(edges[0]?.labels?.map((l) => l.text)).toEqual(['GO', 'RUN [ok]']);
  });

  it('makes one edge per target, a loop for targetless transitions, and labels EVENT [guard] / actions', () => {
    const def = chart();
    const g = buildElkGraph(def, estimateText);
    const both = Object.values(def.transitions).find((t) => t.event === 'BOTH');
    const ping = Object.values(def.transitions).find((t) => t.event === 'PING');
    const play = Object.values(def.transitions).find((t) => t.event === 'PLAY');
    if (!both || !ping || !play) throw new Error('fixture');
    const edges = allEdges(g).map((e) => e.edge);
    const ids = edges.map((e) => e.id);
    // BOTH has two targets: two routes, the label on the first one's own piece only.
    for (const target of both.targets)
      for (const p of routeOf(def, both.source, target).pieces) expect(ids).toContain(p.id);
    expect(edges.flatMap((e) => e.labels ?? []).filter((l) => l.id === both.id)).toHaveLength(1);
    const pingEdge = edges.find((e) => e.labels?.some((l) => l.id === ping.id));
    expect(pingEdge?.sources).toEqual([ping.source]);
    expect(pingEdge?.targets).toEqual([ping.source]);
    expect(transitionLabel(def, play)).toBe('PLAY [hasTrack] / start');
    const labels = Object.values(def.transitions).map((t) => transitionLabel(def, t));
    expect(labels).toContain('after 500ms');
    expect(labels).toContain('always');
  });
});

describe('ELK output mapping', () => {
  it('places the root at 0,0, children inside their parents, edges between their states', async () => {
    const def = chart();
    const layout = await layoutDefinition(elk, def, estimateText);
    const root = layout.nodes[def.root];
    expect(root).toMatchObject({ x: 0, y: 0, depth: 0 });
    expect(Object.keys(layout.nodes).sort()).toEqual(Object.keys(def.states).sort());
    for (const n of Object.values(layout.nodes)) {
      if (n.parent === null) continue;
      const p = layout.nodes[n.parent];
      if (!p) throw new Error('parent');
      expect(n.x).toBeGreaterThanOrEqual(p.x - 0.5);
      expect(n.y).toBeGreaterThanOrEqual(p.y - 0.5);
      expect(n.x + n.width).toBeLessThanOrEqual(p.x + p.width + 0.5);
      expect(n.y + n.height).toBeLessThanOrEqual(p.y + p.height + 0.5);
    }
    expect(layout.nodes[idOf(def, 'audio')]?.region).toBe(true);
    expect(layout.nodes[idOf(def, 'hist')]?.history).toBe('deep');
    const mute = Object.values(layout.edges).find((e) => e.label?.text === 'MUTE');
    if (!mute) throw new Error('no MUTE edge');
    expect(mute.points.length).toBeGreaterThanOrEqual(2);
    const src = layout.nodes[mute.source];
    const start = mute.points[0];
    if (!src || !start) throw new Error('edge');
    // The edge starts on its source's border.
    const onBorder = Math.min(
      Math.abs(start.x - src.x),
      Math.abs(start.x - src.x - src.width),
      Math.abs(start.y - src.y),
      Math.abs(start.y - src.y - src.height),
    );
    expect(onBorder).toBeLessThan(1);
    expect(Object.values(layout.edges).find((e) => e.label?.text.startsWith('PING'))).toMatchObject({
      selfLoop: true,
      targetless: true,
    });
  });

  it('lays out every fixture machine', async () => {
    const { fixtures } = await import('../model/helpers.ts');
    for (const f of fixtures()) {
      const def = importXState(f.config);
      const layout = await layoutDefinition(elk, def, estimateText);
      expect(Object.keys(layout.nodes)).toHaveLength(Object.keys(def.states).length);
      expect(layout.width).toBeGreaterThan(0);
    }
  });
});

/**
 * Stability (the strategy in sizes.ts and elk-input.ts): leaf widths snap to steps and
 * stick while the text fits, children and edges keep document order, and each compound's
 * inside depends only on its own subtree. So a rename that fits moves nothing, and adding
 * one leaf keeps most states where they were relative to their parent (containers may
 * grow, which shifts what lies beside them).
 */
describe('layout stability in a 50-state chart', () => {
  const relative = (l: Layout, id: string) => {
    const n = l.nodes[id];
    if (!n) return null;
    const p = n.parent ? l.nodes[n.parent] : undefined;
    return { x: n.x - (p?.x ?? 0), y: n.y - (p?.y ?? 0) };
  };
  const still = (a: Layout, b: Layout, abs: boolean): number =>
    Object.values(a.nodes).filter((n) => {
      const p = abs ? n : relative(a, n.id);
      const q = abs ? b.nodes[n.id] : relative(b, n.id);
      return p && q && Math.abs(p.x - q.x) <= 2 && Math.abs(p.y - q.y) <= 2;
    }).length;

  it('renaming a state to a name that fits moves no state at all', async () => {
    const def = generateChart(50);
    const before = await layoutDefinition(elk, def, estimateText);
    const leaf = Object.values(def.states).find((s) => s.children.length === 0 && s.key.length > 6);
    if (!leaf) throw new Error('fixture');
    const renamed = applyOps(def, [{ type: 'state.rename', id: leaf.id, key: 'renamed' }]);
    const after = await layoutDefinition(elk, renamed, estimateText, hintsFrom(before));
    expect(still(before, after, true)).toBe(50);
  });

  it('adding one leaf state keeps most states in place relative to their parent', async () => {
    const def = generateChart(50);
    const before = await layoutDefinition(elk, def, estimateText);
    for (const parent of ['s_3', 's_12', 's_0']) {
      const added = applyOps(def, [
        { type: 'state.add', id: 's_new', parent, key: 'added', stateType: 'atomic', index: null },
      ]);
      const after = await layoutDefinition(elk, added, estimateText, hintsFrom(before));
      expect(still(before, after, false)).toBeGreaterThanOrEqual(40);
    }
  });
});
