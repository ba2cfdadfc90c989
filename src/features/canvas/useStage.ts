import { useCallback, useRef, useState, type RefCallback } from 'react';
import type { CanvasIntent, Viewport } from '../../../machines/open-machine/canvas.machine.ts';
import { useCanvasSend, usePaneShapeSend } from './open-machine-context.ts';

export interface Stage {
  /** Put on the element the diagram is drawn in: its size frames every fit and jump, and is measured as it changes. */
  ref: RefCallback<HTMLDivElement>;
  /** Its size in pixels, kept current (the minimap's view box). */
  size: { width: number; height: number };
  /** Fit the whole layout in the stage (the view is the fit's again: new layouts and sizes refit it). */
  fit: () => void;
  /** Zoom about the stage's centre. */
  zoom: (factor: number) => void;
  /** Centre the view on a world point, at the same zoom (a minimap click). */
  jump: (x: number, y: number) => void;
  /** Bring a state into view with room around it (a found state), now or once a layout shows it. */
  find: (id: string) => void;
}

/**
 * How many px of the stage's foot `over` is drawn over: the phone's bottom sheet spans the
 * stage's width; beside the stage (a wide screen's side panel) it covers nothing.
 */
export function coveredFoot(stage: HTMLElement, over: HTMLElement): number {
  const s = stage.getBoundingClientRect();
  const o = over.getBoundingClientRect();
  const across = Math.min(s.right, o.right) - Math.max(s.left, o.left);
  if (across < s.width / 2 || o.top >= s.bottom || o.bottom <= s.top) return 0;
  return Math.round(s.bottom - Math.max(o.top, s.top));
}

/**
 * The stage's view and the world outside it. The stage's size goes to the canvas
 * (`canvas.paneSized`) and the layout (its shape) from a ResizeObserver as it changes, with
 * how much of its foot the phone's bottom sheet covers (`canvas.stageCovered`); the
 * canvas machine fits the view from it and from each layout (the first one, and again while
 * no one has moved the view), and from it the open machine tells presence what this person
 * looks at and shows the followed person's view. Gestures that move the view send through
 * `send`, which unfollows.
 */
export function useStage(viewport: Viewport, send: (intent: CanvasIntent) => void, onUserMove: () => void): Stage {
  const canvasSend = useCanvasSend();
  const paneShapeSend = usePaneShapeSend();
  const stageRef = useRef<HTMLDivElement>(null);
  const fit = useCallback(() => canvasSend({ type: 'canvas.fit' }), [canvasSend]);

  // The stage's size, measured as it changes: for the minimap's view box; the layout turns a
  // chart far wider (or taller) than the pane, so it needs the pane's shape; Fit's overview
  // (the canvas machine's view choice), this person's look and a followed view need its size.
  const [size, setSize] = useState({ width: 0, height: 0 });
  const ref = useCallback(
    (el: HTMLDivElement | null) => {
      stageRef.current = el;
      if (!el) return;
      // The side panel: on a phone a bottom sheet drawn over the stage's foot (dock-sheet.css).
      const dock = el.closest('.machine-body')?.querySelector<HTMLElement>('.machine-dock') ?? null;
      const cover = () => canvasSend({ type: 'canvas.stageCovered', bottom: dock ? coveredFoot(el, dock) : 0 });
      const measure = () => {
        const width = el.clientWidth;
        const height = el.clientHeight;
        setSize((s) => (s.width === width && s.height === height ? s : { width, height }));
        if (width <= 0 || height <= 0) return;
        paneShapeSend(width / height);
        canvasSend({ type: 'canvas.paneSized', width, height });
        cover();
      };
      // An observer reports its element's size when it starts observing, then each change
      // (the sheet's as it rises and lowers: what it covers, not the stage's size).
      const observer = new ResizeObserver(measure);
      observer.observe(el);
      const sheet = new ResizeObserver(cover);
      if (dock) sheet.observe(dock);
      return () => {
        observer.disconnect();
        sheet.disconnect();
        stageRef.current = null;
      };
    },
    [paneShapeSend, canvasSend],
  );

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
  const find = useCallback(
    (id: string) => {
      onUserMove();
      canvasSend({ type: 'canvas.find', id });
    },
    [canvasSend, onUserMove],
  );
  return { ref, size, fit, zoom, jump, find };
}
