import type { ElkExtendedEdge, ElkNode, ElkPort } from 'elkjs/lib/elk-api.js';

/**
 * Sub-layouts of compound states kept between runs. ELK lays out each compound's
 * children on its own (`SEPARATE_CHILDREN`), so a compound's inner picture, its size and
 * its border ports depend only on its own subtree of the ELK input. The worker lays out
 * after every edit; an edit touches one compound and its ancestors, so every other
 * compound is handed to ELK as a fixed box and its cached inside is put back afterwards.
 * That is both the speed (a small edit re-lays out a handful of small graphs) and the
 * stability (what did not change cannot move inside).
 *
 * Keys are signatures of a compound's input subtree (sizes, edges, labels, ports,
 * options, ids). Entries unused for a whole run are dropped, so the cache holds about
 * one diagram. Coordinates stay as ELK gives them: relative to the compound.
 */
export interface Inner {
  width: number;
  height: number;
  ports: ElkPort[];
  children: ElkNode[];
  edges: ElkExtendedEdge[];
}

export class LayoutCache {
  private current = new Map<string, Inner>();
  private previous = new Map<string, Inner>();
  hits = 0;
  misses = 0;

  /** Call once per layout run, before any lookup. */
  startRun(): void {
    this.previous = this.current;
    this.current = new Map();
    this.hits = 0;
    this.misses = 0;
  }

  get(signature: string): Inner | undefined {
    const found = this.current.get(signature) ?? this.previous.get(signature);
    if (found) {
      this.current.set(signature, found);
      this.hits++;
    } else this.misses++;
    return found;
  }

  set(signature: string, inner: Inner): void {
    this.current.set(signature, inner);
  }

  get size(): number {
    return this.current.size;
  }
}

/** 2 x 32-bit FNV-1a: short keys, collisions not a practical concern for one diagram. */
function hash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(36) + (b >>> 0).toString(36) + text.length.toString(36);
}

const isCompound = (n: ElkNode): boolean => (n.children?.length ?? 0) > 0;

/** Signatures of every compound in an ELK input tree, children before parents. */
export function signatures(graph: ElkNode): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (n: ElkNode): string => {
    const kids = (n.children ?? []).map((c) =>
      isCompound(c) ? visit(c) : [c.id, c.width, c.height, c.layoutOptions, c.ports],
    );
    const sig = hash(JSON.stringify([n.id, n.layoutOptions, n.ports, n.edges, kids]));
    out.set(n.id, sig);
    return sig;
  };
  for (const c of graph.children ?? []) if (isCompound(c)) visit(c);
  return out;
}

/**
 * Replaces every compound whose inside is cached (the outermost such) by a fixed box with
 * its ports where they were; returns what was boxed, to put back after ELK ran.
 */
export function boxCached(graph: ElkNode, sigs: Map<string, string>, cache: LayoutCache): Map<string, Inner> {
  const boxed = new Map<string, Inner>();
  const visit = (n: ElkNode): void => {
    for (const c of n.children ?? []) {
      if (!isCompound(c)) continue;
      const sig = sigs.get(c.id);
      const inner = sig === undefined ? undefined : cache.get(sig);
      if (!inner) {
        visit(c);
        continue;
      }
      boxed.set(c.id, inner);
      c.width = inner.width;
      c.height = inner.height;
      c.ports = inner.ports.map((p) => ({
        id: p.id,
        x: p.x ?? 0,
        y: p.y ?? 0,
        width: 0,
        height: 0,
        layoutOptions: p.layoutOptions,
      }));
      // ELK fixes a laid-out compound's ports where its inside put them; a box says so.
      // Without ports the options stay as they were: FIXED_POS alone shifts ELK's result.
      if (inner.ports.length > 0) c.layoutOptions = { ...c.layoutOptions, 'elk.portConstraints': 'FIXED_POS' };
      c.children = [];
      c.edges = [];
    }
  };
  visit(graph);
  return boxed;
}

/** Puts the cached insides back into ELK's result and stores every compound's inside. */
export function restoreAndStore(
  result: ElkNode,
  boxed: Map<string, Inner>,
  sigs: Map<string, string>,
  cache: LayoutCache,
): void {
  const visit = (n: ElkNode): void => {
    const inner = boxed.get(n.id);
    if (inner) {
      n.children = inner.children;
      n.edges = inner.edges;
      n.ports = inner.ports;
    }
    const sig = sigs.get(n.id);
    if (sig !== undefined) {
      cache.set(
        sig,
        inner ?? {
          width: n.width ?? 0,
          height: n.height ?? 0,
          ports: n.ports ?? [],
          children: n.children ?? [],
          edges: n.edges ?? [],
        },
      );
    }
    // Restored insides are visited too: their compounds stay cached for the next run.
    for (const c of n.children ?? []) visit(c);
  };
  for (const c of result.children ?? []) visit(c);
}
