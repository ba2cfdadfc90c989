import { useMemo, useRef, type CSSProperties, type KeyboardEvent, type PointerEvent, type WheelEvent } from 'react';
import type { CanvasIntent, DragLine, Viewport } from '../../../machines/open-machine/canvas.machine.ts';
import type { DiagramSim } from '../simulation/simulation-selectors.ts';
import {
  FAR,
  LABELS_GROWN,
  labelsOffBelow,
  layoutLabelRoom,
  nameScale,
  pillScale,
} from '../../lib/layout/readability.ts';
import type { Box, Layout } from '../../lib/layout/types.ts';
import { randomIds } from '../../lib/model/ids.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import { CommentPins, pinBoxOf } from '../comments/CommentPins.tsx';
import { LabelBox, RenameBox } from './inline-editors.tsx';
import { RetargetOverlay } from './RetargetOverlay.tsx';
import { DiagramShapes, type DiagramMarks, type PeerMark } from './shapes.tsx';
import { useStableLayout } from './stable-layout.ts';

export interface DiagramProps {
  definition: MachineDefinition;
  layout: Layout | null;
  viewport: Viewport;
  selection: string[];
  editing: string | null;
  mode: 'idle' | 'panning' | 'renaming' | 'connecting' | 'labelling';
  connect: DragLine | null;
  canEdit: boolean;
  peers: PeerMark[];
  send: (intent: CanvasIntent) => void;
  onKeyDown: (e: KeyboardEvent<HTMLDivElement>) => void;
  onPointerWorld?: (p: { x: number; y: number }) => void;
  /** Dot paths of the states active in the simulation shown. */
  activePaths?: readonly string[];
  /** Collapsed states shown, with how many states each hides. */
  hidden?: Record<string, number>;
  /** Expands or collapses a compound state (a view choice, not an edit). */
  onToggle?: (id: string) => void;
  /**
   * The shared simulation on the diagram (its active states win over `activePaths`): the
   * transitions enabled now are drawn in the accent colour and their labels are buttons
   * that send their event through `onSimSend`; the ones just taken are marked.
   */
  simulation?: DiagramSim;
  /** The tests' marks: coverage (while on) and the played step's states. */
  marks?: DiagramMarks;
  onSimSend?: (eventType: string) => void;
  onSimDismiss?: () => void;
  /** The comment pins (the live chart's threads); off while a version or diff is shown. */
  pins?: boolean;
  /** A comment pin chosen: its newest thread, the state or transition it hangs on, and its mark's box (diagram units). */
  onPin?: (threadId: string, target: string, box: Box | null) => void;
}

const NO_HIDDEN: Record<string, number> = {};

/*
 * How the diagram degrades with zoom (src/lib/layout/readability.ts): below FAR names grow
 * to stay 9 px tall on screen (each capped by its box, shapes) and details give way
 * (canvas.css `.far`); transition labels are drawn only while at least 10 px tall, growing
 * toward that a little below it as far as no grown pill covers another (label-room.ts, and
 * the layout leaves them that room); below, each arrow between two states shows a badge
 * with how many labels it carries (canvas.css `.labels-off`), and the labels that can be
 * sent while simulating stay, grown toward the floor.
 */
/** Badges keep about 16 px across on screen. */
const badgeScale = (zoom: number): number => Math.max(1, Math.min(6, 1 / zoom));

/**
 * The interactive surface: pointer gestures become canvas intents (pan on the background,
 * select/rename on states, drag from a handle to connect), and the inline editors sit in
 * an HTML overlay at the edited item's screen position.
 */
export function Diagram(props: DiagramProps) {
  const { definition, viewport, selection, editing, mode, connect, canEdit, peers, send } = props;
  // Nodes and edges that did not move stay the same objects: their shapes do not redraw.
  const layout = useStableLayout(props.layout);
  const svgRef = useRef<SVGSVGElement>(null);
  // Once per layout: how far labels may grow before one covers another.
  const labelRoom = useMemo(() => (layout ? layoutLabelRoom(layout) : 1), [layout]);
  const last = useRef<{ x: number; y: number } | null>(null);

  const local = (e: { clientX: number; clientY: number }) => {
    const r = svgRef.current?.getBoundingClientRect();
    return { x: e.clientX - (r?.left ?? 0), y: e.clientY - (r?.top ?? 0) };
  };
  const world = (e: { clientX: number; clientY: number }) => {
    const p = local(e);
    return { x: (p.x - viewport.x) / viewport.zoom, y: (p.y - viewport.y) / viewport.zoom };
  };

  const sim = props.simulation;
  /** The event a label under the pointer sends while simulating (clicked, or Enter / Space on it). */
  const sendOf = (target: EventTarget | null): string | null =>
    target instanceof Element ? (target.closest('[data-send-event]')?.getAttribute('data-send-event') ?? null) : null;

  /** The comment pin under the pointer or focus, chosen (clicked, or Enter / Space on it): true if there was one. */
  const choosePin = (target: EventTarget | null): boolean => {
    const pin = target instanceof Element ? target.closest('[data-comment-thread]') : null;
    if (!pin || !props.onPin) return false;
    const thread = pin.getAttribute('data-comment-thread') ?? '';
    props.onPin(thread, pin.getAttribute('data-comment-target') ?? '', pinBoxOf(pin));
    return true;
  };

  const onPointerDown = (e: PointerEvent<SVGSVGElement>) => {
    const target = e.target as Element;
    // A comment pin is a button: the click chooses it (onClick, after the pointer's own focus).
    if (target.closest('[data-comment-thread]')) return;
    // A transition's label while it can be sent is a button: the click sends (onClick).
    if (sendOf(target) !== null) return;
    const toggle = target.closest('[data-toggle-for]');
    if (toggle) {
      props.onToggle?.(toggle.getAttribute('data-toggle-for') ?? '');
      return;
    }
    const end = target.closest('[data-retarget-for]');
    if (end && canEdit) {
      e.currentTarget.setPointerCapture(e.pointerId);
      const [transition, index, source] = ['for', 'index', 'source'].map((k) => end.getAttribute(`data-retarget-${k}`));
      send({
        type: 'canvas.retargetStart',
        transition: transition ?? '',
        index: Number(index),
        source: source ?? '',
        ...world(e),
      });
      return;
    }
    const handle = target.closest('[data-handle-for]');
    const state = target.closest('[data-state-id]');
    const transition = target.closest('[data-transition-id]');
    if (handle && canEdit) {
      e.currentTarget.setPointerCapture(e.pointerId);
      const w = world(e);
      send({ type: 'canvas.connectStart', source: handle.getAttribute('data-handle-for') ?? '', ...w });
      return;
    }
    if (transition) {
      send({ type: 'canvas.select', id: transition.getAttribute('data-transition-id') ?? '', additive: e.shiftKey });
      return;
    }
    if (state && state.getAttribute('data-state-id') !== definition.root) {
      send({ type: 'canvas.select', id: state.getAttribute('data-state-id') ?? '', additive: e.shiftKey });
      return;
    }
    if (!e.shiftKey) send({ type: 'canvas.clearSelection' });
    e.currentTarget.setPointerCapture(e.pointerId);
    last.current = { x: e.clientX, y: e.clientY };
    send({ type: 'canvas.panStart' });
  };

  const onPointerMove = (e: PointerEvent<SVGSVGElement>) => {
    props.onPointerWorld?.(world(e));
    if (mode === 'connecting') {
      const over = stateUnder(e)?.getAttribute('data-state-id');
      send({ type: 'canvas.connectMove', ...world(e), over: over === definition.root ? null : over });
    } else if (mode === 'panning' && last.current) {
      send({ type: 'canvas.panBy', dx: e.clientX - last.current.x, dy: e.clientY - last.current.y });
      last.current = { x: e.clientX, y: e.clientY };
    }
  };

  const onPointerUp = (e: PointerEvent<SVGSVGElement>) => {
    if (mode === 'connecting') {
      const hit = stateUnder(e);
      send({
        type: 'canvas.connectEnd',
        target: hit?.getAttribute('data-state-id') ?? null,
        transitionId: randomIds('transition'),
      });
    } else if (mode === 'panning') {
      last.current = null;
      send({ type: 'canvas.panEnd' });
    }
  };

  const onClick = (e: React.MouseEvent<SVGSVGElement>) => {
    if (choosePin(e.target)) return;
    const type = sendOf(e.target);
    if (type !== null) props.onSimSend?.(type);
  };

  const onDiagramKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if ((e.key === 'Enter' || e.key === ' ') && choosePin(e.target)) {
      e.preventDefault();
      return;
    }
    const type = sendOf(e.target);
    if (type !== null && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      props.onSimSend?.(type);
      return;
    }
    props.onKeyDown(e);
  };

  const onDoubleClick = (e: React.MouseEvent<SVGSVGElement>) => {
    const target = e.target as Element;
    if (sendOf(target) !== null) return;
    const state = target.closest('[data-state-id]');
    const transition = target.closest('[data-transition-id]');
    if (transition) send({ type: 'canvas.labelStart', id: transition.getAttribute('data-transition-id') ?? '' });
    else if (state && state.getAttribute('data-state-id') !== definition.root)
      send({ type: 'canvas.renameStart', id: state.getAttribute('data-state-id') ?? '' });
  };

  const onWheel = (e: WheelEvent<SVGSVGElement>) => {
    if (e.ctrlKey || e.metaKey) {
      send({ type: 'canvas.zoomAt', factor: Math.exp(-e.deltaY * 0.01), ...local(e) });
    } else if (mode === 'idle') {
      send({ type: 'canvas.panStart' });
      send({ type: 'canvas.panBy', dx: -e.deltaX, dy: -e.deltaY });
      send({ type: 'canvas.panEnd' });
    }
  };

  const source = connect ? layout?.nodes[connect.source] : undefined;
  return (
    <div
      className="diagram"
      tabIndex={0}
      role="application"
      aria-label={`Diagram of ${definition.name || 'machine'}`}
      onKeyDown={onDiagramKey}
    >
      <svg
        ref={svgRef}
        className={`diagram-svg mode-${mode}${viewport.zoom < FAR ? ' far' : ''}${viewport.zoom < labelsOffBelow(labelRoom) ? ' labels-off' : viewport.zoom < LABELS_GROWN ? ' labels-grown' : ''}${sim && sim.step !== null ? ' simulating' : ''}`}
        style={
          {
            '--label-scale': nameScale(viewport.zoom).toFixed(2),
            '--pill-scale': (Math.ceil(pillScale(viewport.zoom) * 100) / 100).toFixed(2),
            '--badge-scale': badgeScale(viewport.zoom).toFixed(2),
          } as CSSProperties
        }
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onClick={onClick}
        onDoubleClick={onDoubleClick}
        onWheel={onWheel}
      >
        <rect className="diagram-bg" width="100%" height="100%" />
        <g className="viewport" transform={`translate(${viewport.x} ${viewport.y}) scale(${viewport.zoom})`}>
          {layout && (
            <DiagramShapes
              definition={definition}
              layout={layout}
              selection={selection}
              peers={peers}
              canEdit={canEdit}
              activePaths={sim && sim.step !== null ? sim.active : props.activePaths}
              hidden={props.hidden ?? NO_HIDDEN}
              enabled={sim?.enabled}
              taken={sim?.taken}
              step={sim?.step}
              marks={props.marks}
            />
          )}
          {layout && <RetargetOverlay {...{ definition, layout, selection, canEdit, connect }} />}
          {layout && props.pins !== false && <CommentPins definition={definition} layout={layout} />}
          {connect && source && (
            <path
              className="connect-line"
              d={`M${source.x + source.width},${source.y + source.height / 2} L${connect.x},${connect.y}`}
              markerEnd="url(#cr-arrow)"
            />
          )}
        </g>
      </svg>
      {sim?.error && (
        <p className="diagram-sim-note" role="alert">
          {sim.error}
          {props.onSimDismiss && (
            <button type="button" className="link" onClick={props.onSimDismiss}>
              Dismiss
            </button>
          )}
        </p>
      )}
      {layout && editing && mode === 'renaming' && (
        <RenameBox
          key={`${editing}:${definition.states[editing] ? 1 : 0}`}
          {...{ definition, layout, viewport, send }}
          id={editing}
        />
      )}
      {layout && editing && mode === 'labelling' && (
        <LabelBox key={editing} {...{ definition, layout, viewport, send }} id={editing} />
      )}
    </div>
  );
}

/** The topmost state under the pointer (the machine's own box when over empty space). */
function stateUnder(e: { clientX: number; clientY: number }): Element | undefined {
  return document
    .elementsFromPoint(e.clientX, e.clientY)
    .map((el) => el.closest('[data-state-id]'))
    .find((el) => el !== null);
}
