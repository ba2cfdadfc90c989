import { useCallback, useEffect, useRef, useState, type RefCallback } from 'react';
import type { CanvasIntent, Viewport } from '../../../machines/open-machine/canvas.machine.ts';
import { extentChanged } from '../../lib/layout/fit.ts';
import { extentOf, type Box, type Layout } from '../../lib/layout/types.ts';
import { useCanvasSend, usePaneShapeSend } from './open-machine-context.ts';

export interface Stage {
  /** Put on the element the diagram is drawn in: its size frames every fit and jump, and is measured as it changes. */
  ref: RefCallback<HTMLDivElement>;
  /** Its size in pixels, kept current (the minimap's view box). */
  size: { width: number; height: number };
  /** Fit the whole layout in the stage. */
  fit: () => void;
  /** Zoom about the stage's centre. */
  zoom: (factor: number) => void;
  /** Centre the view on a world point, at the same zoom (a minimap click). */
  jump: (x: number, y: number) => void;
  /** Bring a box into view with room around it (a found state); false while there is no stage. */
  frame: (box: Box) => boolean;
}

/**
 * The stage's view and the world outside it: fits when the first layout arrives, and
 * again when the chart's extent changes a lot while no one has moved the view. The stage's
 * size goes to the canvas (`canvas.paneSized`) and the layout (its shape) from a
 * ResizeObserver as it changes; from it the open machine tells presence what this person
 * looks at and shows the followed person's view. Gestures that move the view send through
 * `send`, which unfollows.
 */
export function useStage(
  layout: Layout | null,
  viewport: Viewport,
  send: (intent: CanvasIntent) => void,
  onUserMove: () => void,
  overview: string = '',
): Stage {
  const canvasSend = useCanvasSend();
  const paneShapeSend = usePaneShapeSend();
  const stageRef = useRef<HTMLDivElement>(null);
  // Whether the view is still the one a fit gave: a fit's own viewport change is expected;
  // any other (a pan, a zoom, following someone) means the person chose the view.
  const expectFit = useRef(false);
  const touched = useRef(false);
  // The extent of the chart the last fit framed.
  const fittedExtent = useRef<{ width: number; height: number } | null>(null);
  const fit = useCallback(() => {
    const el = stageRef.current;
    if (!el || !layout) return;
    expectFit.current = true;
    touched.current = false;
    fittedExtent.current = { width: layout.width, height: layout.height };
    // Where the chart starts: the root's initial state, kept in view when the chart cannot show whole (a phone).
    const root = Object.values(layout.nodes).find((n) => n.parent === null);
    const initial = root?.initial ? layout.nodes[root.initial] : undefined;
    canvasSend({
      type: 'canvas.fit',
      bounds: extentOf(layout),
      width: el.clientWidth,
      height: el.clientHeight,
      focus: initial ? { x: initial.x, y: initial.y, width: initial.width, height: initial.height } : null,
    });
  }, [canvasSend, layout]);
  // Fit when the first layout arrives, and again when the chart's extent changes a lot
  // (a peer's big paste) while the view is still the fit's: a view the person moved stays.
  const fitted = useRef(false);
  // Fit's overview changed (the pane was measured, or resized, and the chart shows more or
  // less collapsed): the layout that follows is fitted, unless the view was moved.
  const overviewFitted = useRef(overview);
  useEffect(() => {
    if (!layout) return;
    if (!fitted.current) {
      fitted.current = true;
      overviewFitted.current = overview;
      fit();
    } else if (
      !touched.current &&
      ((fittedExtent.current && extentChanged(fittedExtent.current, layout)) || overviewFitted.current !== overview)
    ) {
      overviewFitted.current = overview;
      fit();
    }
    // `overview` is read when its layout arrives, not when it changes.
  }, [layout, fit]);

  // The viewport the stage last saw: the effect's first run (the mount, the same commit as a
  // first fit) is no change, so the fit's own change, when it comes, is the one expected.
  const seenViewport = useRef(viewport);
  useEffect(() => {
    if (viewport === seenViewport.current) return;
    seenViewport.current = viewport;
    if (!fitted.current) return;
    if (expectFit.current) expectFit.current = false;
    else touched.current = true;
  }, [viewport]);

  // The stage's size, measured as it changes: for the minimap's view box; the layout turns a
  // chart far wider (or taller) than the pane, so it needs the pane's shape; Fit's overview
  // (the canvas machine's view choice), this person's look and a followed view need its size.
  const [size, setSize] = useState({ width: 0, height: 0 });
  const ref = useCallback(
    (el: HTMLDivElement | null) => {
      stageRef.current = el;
      if (!el) return;
      const measure = () => {
        const width = el.clientWidth;
        const height = el.clientHeight;
        setSize((s) => (s.width === width && s.height === height ? s : { width, height }));
        if (width <= 0 || height <= 0) return;
        paneShapeSend(width / height);
        canvasSend({ type: 'canvas.paneSized', width, height });
      };
      // The observer reports the element's size when it starts observing, then each change.
      const observer = new ResizeObserver(measure);
      observer.observe(el);
      return () => {
        observer.disconnect();
        stageRef.current = null;
      };
    },
    [paneShapeSend, canvasSend],
  );

  // The stage changed size (a panel opened under it, the window was resized): a view no
  // one has moved since the fit is fitted again, so the chart stays in view.
  useEffect(() => {
    if (fitted.current && !touched.current && size.width > 0 && size.height > 0) fit();
    // Only a new size refits; `fit` changes with every layout, which the first-fit effect covers.
  }, [size]);

  const jump = (x: number, y: number) => {
    onUserMove();
    canvasSend({
      type: 'canvas.viewportFollowed',
      viewport: {
        zoom: viewport.zoom,
        x: size.width / 2 - x * viewport.zoom,
        y: size.height / 2 - y * viewport.zoom,
      },
    });
  };
  const zoom = (factor: number) => {
    const el = stageRef.current;
    send({ type: 'canvas.zoomAt', factor, x: (el?.clientWidth ?? 0) / 2, y: (el?.clientHeight ?? 0) / 2 });
  };
  const frame = useCallback(
    (box: Box): boolean => {
      const el = stageRef.current;
      if (!el) return false;
      onUserMove();
      const pad = { x: Math.max(160, el.clientWidth / 3), y: Math.max(120, el.clientHeight / 3) };
      canvasSend({
        type: 'canvas.fit',
        bounds: { x: box.x - pad.x, y: box.y - pad.y, width: box.width + 2 * pad.x, height: box.height + 2 * pad.y },
        width: el.clientWidth,
        height: el.clientHeight,
      });
      return true;
    },
    [canvasSend, onUserMove],
  );
  return { ref, size, fit, zoom, jump, frame };
}
