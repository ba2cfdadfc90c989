import type { StateId, StateType, TransitionId } from '../model/types.ts';

/** A positioned diagram. All coordinates are absolute (the machine root's box at 0,0). */

export interface Point {
  x: number;
  y: number;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LayoutNode extends Box {
  id: StateId;
  parent: StateId | null;
  key: string;
  type: StateType;
  /** Nesting depth: 0 for the machine root. */
  depth: number;
  /** A child region of a parallel state (drawn with a dashed border). */
  region: boolean;
  /** 'shallow' | 'deep' for history states. */
  history: 'shallow' | 'deep' | null;
  /** This node's initial child, for the initial marker. */
  initial: StateId | null;
  /** Header height for compound nodes (where the name sits). */
  header: number;
}

export interface LayoutEdge {
  /** `<transitionId>` for the first target, `<transitionId>#<n>` for further ones. */
  id: string;
  transition: TransitionId;
  source: StateId;
  target: StateId;
  /** The polyline from the source's border to the target's border. */
  points: Point[];
  label: (Box & { text: string }) | null;
  selfLoop: boolean;
  /** A transition without targets (actions only), drawn as a dashed loop. */
  targetless: boolean;
}

/** Which way the chart flows: left to right, or top to bottom (direction.ts). */
export type LayoutDirection = 'RIGHT' | 'DOWN';

export interface Layout {
  nodes: Record<StateId, LayoutNode>;
  edges: Record<string, LayoutEdge>;
  width: number;
  height: number;
  /**
   * All that is drawn, where it reaches past the root's box (the machine's own loops and
   * their labels run around it): what Fit frames. Absent: the root's box.
   */
  extent?: Box;
  /** The flow chosen for the pane; absent when none was (no pane measured yet): left to right. */
  direction?: LayoutDirection;
}

/** What the previous layout contributes to the next one (see sizes.ts, elk-input.ts). */
export interface LayoutHints {
  /** Previous node sizes; reused while the content still fits, so neighbours stay put. */
  sizes: Record<StateId, { width: number; height: number }>;
  /**
   * Previous node positions. Not fed to ELK (its semi-interactive ordering moved more than
   * it kept still, see elk-input.ts); insides of untouched compounds stay put anyway.
   */
  positions: Record<StateId, Point>;
  /** The previous layout's flow, kept so an edit does not turn the picture (direction.ts). */
  direction?: LayoutDirection;
}

/** What Fit frames: the layout's extent, or the root's box. */
export const extentOf = (layout: Pick<Layout, 'width' | 'height' | 'extent'>): Box =>
  layout.extent ?? { x: 0, y: 0, width: layout.width, height: layout.height };
