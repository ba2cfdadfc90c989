import { useActorRef, useSelector } from '@xstate/react';
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { fromPromise } from 'xstate';
import { canvasMachine, type CanvasEdit, type CanvasIntent } from '../../../machines/canvas.machine.ts';
import { layoutMachine } from '../../../machines/layout.machine.ts';
import { addChildOps, addSiblingOps, connectOps, deleteOps, renameOps, setEventOps } from '../../lib/canvas-ops/edits.ts';
import { diffToOps } from '../../lib/canvas-ops/diff.ts';
import { autoCollapsed, collapseView, hiddenBy } from '../../lib/layout/collapse.ts';
import { randomIds } from '../../lib/model/ids.ts';
import type { Op } from '../../lib/model/op-types.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import type { View } from '../../lib/ports/canvas-presence.ts';
import type { LayoutPort, LayoutRequest, LayoutResult } from '../../lib/ports/layout.ts';
import { CodeView } from './CodeView.tsx';
import { Diagram } from './Diagram.tsx';
import { EXAMPLE_NAMES, loadExample } from './examples.ts';
import { keyAction } from './keymap.ts';
import { Minimap } from './Minimap.tsx';
import { workerLayoutPort } from './layout-port.ts';
import { PeerCursors, type PeerCursor } from './PeerCursors.tsx';
import { DiscardedEdit } from '../room/DiscardedEdit.tsx';
import type { PeerMark } from './shapes.tsx';
import './canvas.css';

export interface CanvasPageProps {
  definition: MachineDefinition;
  /** Edits as model ops; the document layer applies, shares and records them for undo. */
  onOps: (ops: Op[]) => void;
  onUndo?: () => void;
  onRedo?: () => void;
  canEdit: boolean;
  peers?: PeerCursor[];
  /** Where this person's pointer is over the diagram (world coordinates), for presence. */
  onPointer?: (p: { x: number; y: number } | null) => void;
  /** Loading an example creates a new machine when given; otherwise it replaces this one (as ops). */
  onCreate?: (name: string, definition: MachineDefinition) => void;
  /** Layout runs in a Web Worker unless a port is given (tests may pass one). */
  layoutPort?: LayoutPort;
  /** This person's selection, for presence. */
  onSelection?: (selection: string[]) => void;
  /** What this person is looking at (world centre and zoom), whenever it changes. */
  onView?: (view: View) => void;
  /** Someone else's view to show (follow mode); null when not following. */
  followView?: View | null;
  /** This person panned or zoomed themselves (which ends follow mode). */
  onUserMove?: () => void;
}

/** Gestures by which a person moves their own view. */
const USER_MOVES = new Set<CanvasIntent['type']>(['canvas.panStart', 'canvas.zoomAt', 'canvas.fit']);


/** What a gesture means, as ops on the current definition. */
function opsFor(def: MachineDefinition, edit: CanvasEdit): Op[] {
  switch (edit.type) {
    case 'edit.addChild': return def.states[edit.parent] ? addChildOps(def, edit.parent, edit.id) : [];
    case 'edit.addSibling': return def.states[edit.sibling] ? addSiblingOps(def, edit.sibling, edit.id) : [];
    case 'edit.rename': return renameOps(def, edit.id, edit.key);
    case 'edit.delete': return deleteOps(def, edit.ids);
    case 'edit.connect': return def.states[edit.source] && def.states[edit.target] ? connectOps(def, edit.source, edit.target, edit.id) : [];
    case 'edit.event': return setEventOps(def, edit.id, edit.event);
  }
}

/**
 * A machine's diagram and code side by side: the page mounted at
 * /p/:projectId/m/:machineId. Everything it edits leaves as ops through `onOps`; the
 * definition comes back in through props (optimistically, from the document layer).
 */
export function CanvasPage(props: CanvasPageProps) {
  const { definition, onOps, onUndo, onRedo, canEdit, peers = [], onPointer, onCreate, layoutPort, onSelection, onView, followView = null, onUserMove } = props;
  const [view, setView] = useState<'split' | 'diagram' | 'code'>('split');
  const port = useMemo(() => (layoutPort ? { port: layoutPort, close: () => undefined } : workerLayoutPort()), [layoutPort]);
  useEffect(() => () => port.close(), [port]);
  const layoutActor = useActorRef(
    layoutMachine.provide({ actors: { layout: fromPromise<LayoutResult, LayoutRequest>(({ input }) => port.port(input)) } }),
  );
  const canvas = useActorRef(canvasMachine, { input: { canEdit } });
  const layout = useSelector(layoutActor, (s) => s.context.layout);
  const layoutError = useSelector(layoutActor, (s) => s.context.error);
  const viewport = useSelector(canvas, (s) => s.context.viewport);
  const selection = useSelector(canvas, (s) => s.context.selection, (a, b) => a.length === b.length && a.every((x, i) => x === b[i]));
  const editing = useSelector(canvas, (s) => s.context.editing);
  const connect = useSelector(canvas, (s) => s.context.connect);
  const mode = useSelector(canvas, (s) => s.value);

  // Selections change rarely, cursors 20 times a second: the diagram only re-renders for
  // the former (cursors are drawn apart, by PeerCursors), so the marks are keyed by what they show.
  const marksKey = peers.map((p) => `${p.id}:${p.color}:${p.name}:${p.selection.join(',')}`).join('|');
  const marks: PeerMark[] = useMemo(() => peers.map(({ id, name, color, selection }) => ({ id, name, color, selection })), [marksKey]);

  const defRef = useRef(definition);
  defRef.current = definition;
  // Big charts open with their deeper compounds collapsed; each person opens and closes
  // states for themselves. Only what shows is laid out and drawn (src/lib/layout/collapse.ts).
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  const [closed, setClosed] = useState<ReadonlySet<string>>(() => new Set());
  const auto = useMemo(() => autoCollapsed(definition), [definition]);
  const collapsed = useMemo(() => {
    const set = new Set([...auto, ...closed]);
    for (const id of opened) set.delete(id);
    return set;
  }, [auto, opened, closed]);
  const { view: shown, hidden } = useMemo(() => collapseView(definition, collapsed), [definition, collapsed]);
  const setOpen = useCallback((ids: string[], open: boolean) => {
    const edit = (add: boolean) => (prev: ReadonlySet<string>) => {
      const next = new Set(prev);
      for (const id of ids) if (add) next.add(id); else next.delete(id);
      return next;
    };
    setOpened(edit(open));
    setClosed(edit(!open));
  }, []);
  const toggle = useCallback((id: string) => setOpen([id], collapsed.has(id)), [collapsed, setOpen]);
  useEffect(() => layoutActor.send({ type: 'layout.request', definition: shown }), [layoutActor, shown]);
  // Losing the right to edit closes an open name field; say what was dropped.
  const [discarded, setDiscarded] = useState<string | null>(null);
  useEffect(() => {
    const open = canvas.getSnapshot();
    if (!canEdit && open.matches('renaming')) setDiscarded('state name');
    else if (!canEdit && open.matches('labelling')) setDiscarded('event name');
    canvas.send({ type: 'canvas.editableChanged', canEdit });
  }, [canvas, canEdit]);
  useEffect(() => {
    const sub = canvas.on('*', (edit) => {
      const ops = opsFor(defRef.current, edit);
      if (ops.length > 0) onOps(ops);
    });
    return () => sub.unsubscribe();
  }, [canvas, onOps]);

  const stage = useRef<HTMLDivElement>(null);
  const fit = useCallback(() => {
    const el = stage.current;
    const l = layoutActor.getSnapshot().context.layout;
    if (!el || !l) return;
    canvas.send({ type: 'canvas.fit', bounds: { x: 0, y: 0, width: l.width, height: l.height }, width: el.clientWidth, height: el.clientHeight });
  }, [canvas, layoutActor]);
  // Fit once, when the first layout arrives.
  const fitted = useRef(false);
  useEffect(() => {
    if (layout && !fitted.current) {
      fitted.current = true;
      fit();
    }
  }, [layout, fit]);

  const userMove = useRef(onUserMove);
  userMove.current = onUserMove;
  const send = useCallback(
    (intent: CanvasIntent) => {
      if (USER_MOVES.has(intent.type)) userMove.current?.();
      canvas.send(intent);
    },
    [canvas],
  );

  // Presence: this person's selection and view out, a followed person's view in.
  useEffect(() => onSelection?.(selection), [selection, onSelection]);
  useEffect(() => {
    const el = stage.current;
    if (!el || !onView) return;
    onView({ x: (el.clientWidth / 2 - viewport.x) / viewport.zoom, y: (el.clientHeight / 2 - viewport.y) / viewport.zoom, zoom: viewport.zoom });
  }, [viewport, onView]);
  useEffect(() => {
    const el = stage.current;
    if (!el || !followView) return;
    const { x, y, zoom } = followView;
    canvas.send({ type: 'canvas.viewportFollowed', viewport: { zoom, x: el.clientWidth / 2 - x * zoom, y: el.clientHeight / 2 - y * zoom } });
  }, [canvas, followView]);

  // Find a state by name: open what hides it, select it, and bring it into view once laid out.
  const [find, setFind] = useState('');
  const [missed, setMissed] = useState<string | null>(null);
  const [focus, setFocus] = useState<string | null>(null);
  const names = useMemo(() => [...new Set(Object.values(definition.states).filter((s) => s.parent !== null).map((s) => s.key))].sort(), [definition]);
  const onFind = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const q = find.trim().toLowerCase();
    if (q === '') return;
    const states = Object.values(definition.states).filter((s) => s.parent !== null);
    const hit = states.find((s) => s.key.toLowerCase() === q) ?? states.find((s) => s.key.toLowerCase().includes(q));
    setMissed(hit ? null : find.trim());
    if (!hit) return;
    setOpen(hiddenBy(definition, collapsed, hit.id), true);
    canvas.send({ type: 'canvas.select', id: hit.id, additive: false });
    setFocus(hit.id);
  };
  useEffect(() => {
    const node = focus ? layout?.nodes[focus] : undefined;
    const el = stage.current;
    if (!node || !el) return;
    setFocus(null);
    userMove.current?.();
    const pad = { x: Math.max(160, el.clientWidth / 3), y: Math.max(120, el.clientHeight / 3) };
    canvas.send({ type: 'canvas.fit', bounds: { x: node.x - pad.x, y: node.y - pad.y, width: node.width + 2 * pad.x, height: node.height + 2 * pad.y }, width: el.clientWidth, height: el.clientHeight });
  }, [focus, layout, canvas]);

  // The stage's size, for the minimap's view box.
  const [stageSize, setStageSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = stage.current;
    if (!el) return;
    const measure = () => setStageSize((s) => (s.width === el.clientWidth && s.height === el.clientHeight ? s : { width: el.clientWidth, height: el.clientHeight }));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [view]);
  const jump = (x: number, y: number) => {
    userMove.current?.();
    canvas.send({ type: 'canvas.viewportFollowed', viewport: { zoom: viewport.zoom, x: stageSize.width / 2 - x * viewport.zoom, y: stageSize.height / 2 - y * viewport.zoom } });
  };

  const zoom = (factor: number) => {
    const el = stage.current;
    send({ type: 'canvas.zoomAt', factor, x: (el?.clientWidth ?? 0) / 2, y: (el?.clientHeight ?? 0) / 2 });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const action = keyAction(e, selection, () => randomIds('state'));
    if (!action) return;
    e.preventDefault();
    if (action.type === 'doc.undo') onUndo?.();
    else if (action.type === 'doc.redo') onRedo?.();
    else if (action.type === 'view.fit') {
      onUserMove?.();
      fit();
    }
    else if (action.type === 'view.zoom') zoom(action.factor);
    else send(action);
  };
  const one = selection.length === 1 && definition.states[selection[0] ?? ''] ? selection[0] : undefined;

  // Loading an example over this machine replaces it for everyone: ask first.
  const [replacing, setReplacing] = useState<string | null>(null);
  const loadEx = (name: string) => {
    const ex = loadExample(name);
    if (!ex) return;
    if (onCreate) onCreate(name, ex);
    else if (canEdit) setReplacing(name);
  };
  const replaceWith = (name: string) => {
    setReplacing(null);
    const ex = loadExample(name);
    if (ex && canEdit) onOps(diffToOps(definition, ex));
  };

  return (
    <div className="canvas-page">
      <div className="canvas-toolbar" role="toolbar" aria-label="Diagram tools">
        {canEdit && (
          <>
            <button type="button" disabled={!one} onClick={() => send({ type: 'canvas.addChild', id: randomIds('state') })} title="Add child state (Tab)">Add child</button>
            <button type="button" disabled={!one} onClick={() => send({ type: 'canvas.addSibling', id: randomIds('state') })} title="Add sibling state (Shift+Enter)">Add sibling</button>
            <button type="button" disabled={!one} onClick={() => one && send({ type: 'canvas.renameStart', id: one })} title="Rename (Enter or F2)">Rename</button>
            <button type="button" disabled={selection.length === 0} onClick={() => send({ type: 'canvas.delete' })} title="Delete (Delete or Backspace)">Delete</button>
            <span className="sep" />
            <button type="button" disabled={!onUndo} onClick={() => onUndo?.()} title="Undo (Ctrl/Cmd+Z)" aria-label="Undo">↶</button>
            <button type="button" disabled={!onRedo} onClick={() => onRedo?.()} title="Redo (Shift+Ctrl/Cmd+Z)" aria-label="Redo">↷</button>
            <span className="sep" />
          </>
        )}
        <button type="button" onClick={() => zoom(1 / 1.2)} aria-label="Zoom out">−</button>
        <span className="zoom" aria-live="polite">{Math.round(viewport.zoom * 100)}%</span>
        <button type="button" onClick={() => zoom(1.2)} aria-label="Zoom in">+</button>
        <button type="button" onClick={() => { onUserMove?.(); fit(); }} aria-label="Zoom to fit">Fit</button>
        <span className="sep" />
        <div className="segmented" role="group" aria-label="View">
          {(['diagram', 'split', 'code'] as const).map((v) => (
            <button key={v} type="button" aria-pressed={view === v} onClick={() => setView(v)}>{v === 'split' ? 'Both' : v === 'diagram' ? 'Diagram' : 'Code'}</button>
          ))}
        </div>
        <form className="canvas-find" role="search" onSubmit={onFind}>
          <input type="search" aria-label="Find a state" placeholder="Find a state…" list="canvas-state-names" value={find} onChange={(e) => { setFind(e.target.value); setMissed(null); }} />
          <datalist id="canvas-state-names">{names.map((n) => <option key={n} value={n} />)}</datalist>
          {missed !== null && <span className="canvas-find-miss" role="status">No state named “{missed}”</span>}
        </form>
        {(canEdit || onCreate) && (
          <select aria-label="Load example" value="" onChange={(e) => loadEx(e.target.value)}>
            <option value="">Examples…</option>
            {EXAMPLE_NAMES.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        )}
        {!canEdit && <span className="badge">View only</span>}
      </div>
      {discarded !== null && <DiscardedEdit what={discarded} onDismiss={() => setDiscarded(null)} />}
      {replacing !== null && canEdit && (
        <div className="canvas-confirm" role="alertdialog" aria-labelledby="canvas-confirm-text">
          <span id="canvas-confirm-text">
            Replace this whole machine with the example “{replacing}”? Everyone here sees the change; Undo brings it back.
          </span>
          <button type="button" className="danger" onClick={() => replaceWith(replacing)}>Replace machine</button>
          <button type="button" onClick={() => setReplacing(null)}>Keep this machine</button>
        </div>
      )}
      <div className={`canvas-body view-${view}`}>
        {view !== 'code' && (
          <div className="canvas-stage" ref={stage} onPointerLeave={() => onPointer?.(null)}>
            <Diagram
              definition={definition}
              layout={layout}
              viewport={viewport}
              selection={selection}
              editing={editing}
              mode={mode}
              connect={connect}
              canEdit={canEdit}
              peers={marks}
              send={send}
              onKeyDown={onKeyDown}
              onPointerWorld={onPointer}
              hidden={hidden}
              onToggle={toggle}
            />
            {layout && Object.keys(definition.states).length > 30 && <Minimap layout={layout} viewport={viewport} stage={stageSize} onJump={jump} />}
            <PeerCursors peers={peers} viewport={viewport} />
            {!layout && <p className="canvas-status" role="status">Laying out…</p>}
            {layoutError && <p className="canvas-status error" role="alert">{layoutError}</p>}
          </div>
        )}
        {view !== 'diagram' && <CodeView definition={definition} canEdit={canEdit} onApply={(next) => { const ops = diffToOps(definition, next); if (ops.length > 0) onOps(ops); }} />}
      </div>
    </div>
  );
}
