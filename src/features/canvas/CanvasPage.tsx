import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { CanvasIntent } from '../../../machines/canvas.machine.ts';
import { autoCollapsed, collapseView, hiddenBy } from '../../lib/layout/collapse.ts';
import { randomIds } from '../../lib/model/ids.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import { CodeView } from './CodeView.tsx';
import { Diagram } from './Diagram.tsx';
import { EXAMPLE_NAMES, loadExample } from './examples.ts';
import { keyAction } from './keymap.ts';
import { Minimap } from './Minimap.tsx';
import {
  useCanEditCanvas,
  useCanRedo,
  useCanUndo,
  useCanvasMode,
  useCanvasSend,
  useConnectLine,
  useDocumentSend,
  useEditingId,
  useFollowView,
  useLayout,
  useLayoutError,
  useOpenMachineSend,
  usePresenceSend,
  useSelection,
  useActivePaths,
  useViewport,
  type CanvasMode,
} from './open-machine-context.ts';
import { PeerCursors, type PeerCursor } from './PeerCursors.tsx';
import { DiscardedEdit } from '../room/DiscardedEdit.tsx';
import type { PeerMark } from './shapes.tsx';
import './canvas.css';

export interface CanvasPageProps {
  /** The definition on screen (the open machine's document). */
  definition: MachineDefinition;
  /** Everyone else's cursor and selection on this machine, with their names and colours. */
  peers?: PeerCursor[];
  /** Loading an example creates a new machine when given; otherwise it replaces this one (as ops). */
  onCreate?: (name: string, definition: MachineDefinition) => void;
}

/** Gestures by which a person moves their own view. */
const USER_MOVES = new Set<CanvasIntent['type']>(['canvas.panStart', 'canvas.zoomAt', 'canvas.fit']);

/**
 * A machine's diagram and code side by side: the page mounted at
 * /p/:projectId/m/:machineId, inside the open machine's context. It reads the canvas,
 * layout, document and presence through named hooks and sends intents; the open machine
 * routes gestures to the document as ops and new definitions to the layout.
 */
export function CanvasPage({ definition, peers = [], onCreate }: CanvasPageProps) {
  const [view, setView] = useState<'split' | 'diagram' | 'code'>('split');
  const canEdit = useCanEditCanvas();
  const layout = useLayout();
  const layoutError = useLayoutError();
  const viewport = useViewport();
  const selection = useSelection();
  const editing = useEditingId();
  const connect = useConnectLine();
  const mode = useCanvasMode();
  const canUndo = useCanUndo();
  const canRedo = useCanRedo();
  const followView = useFollowView();
  const activePaths = useActivePaths();
  const canvasSend = useCanvasSend();
  const docSend = useDocumentSend();
  const presenceSend = usePresenceSend();
  const openSend = useOpenMachineSend();
  const onUndo = canUndo ? () => docSend({ type: 'doc.undo' }) : undefined;
  const onRedo = canRedo ? () => docSend({ type: 'doc.redo' }) : undefined;
  const onUserMove = useCallback(() => presenceSend({ type: 'presence.unfollow' }), [presenceSend]);
  const onPointer = useCallback(
    (at: { x: number; y: number } | null) => presenceSend({ type: 'presence.point', at }),
    [presenceSend],
  );

  // Selections change rarely, cursors 20 times a second: the diagram only re-renders for
  // the former (cursors are drawn apart, by PeerCursors), so the marks are keyed by what they show.
  const marksKey = peers.map((p) => `${p.id}:${p.color}:${p.name}:${p.selection.join(',')}`).join('|');
  const marks: PeerMark[] = useMemo(
    () => peers.map(({ id, name, color, selection }) => ({ id, name, color, selection })),
    [marksKey],
  );

  // Big charts open with their deeper compounds collapsed; each person opens and closes
  // states for themselves. Only what shows is laid out and drawn (src/lib/layout/collapse.ts):
  // the collapsed set is this view's state, told to the open machine, which lays out the
  // definition as shown.
  const [opened, setOpened] = useState<ReadonlySet<string>>(() => new Set());
  const [closed, setClosed] = useState<ReadonlySet<string>>(() => new Set());
  const auto = useMemo(() => autoCollapsed(definition), [definition]);
  const collapsed = useMemo(() => {
    const set = new Set([...auto, ...closed]);
    for (const id of opened) set.delete(id);
    return set;
  }, [auto, opened, closed]);
  const { hidden } = useMemo(() => collapseView(definition, collapsed), [definition, collapsed]);
  useEffect(() => openSend({ type: 'machine.viewChanged', collapsed: [...collapsed] }), [openSend, collapsed]);
  const setOpen = useCallback((ids: string[], open: boolean) => {
    const edit = (add: boolean) => (prev: ReadonlySet<string>) => {
      const next = new Set(prev);
      for (const id of ids)
        if (add) next.add(id);
        else next.delete(id);
      return next;
    };
    setOpened(edit(open));
    setClosed(edit(!open));
  }, []);
  const toggle = useCallback((id: string) => setOpen([id], collapsed.has(id)), [collapsed, setOpen]);

  // Losing the right to edit closes an open name field (the canvas machine does); say what was dropped.
  const [discarded, setDiscarded] = useState<string | null>(null);
  const editingMode = useRef<CanvasMode>('idle');
  useEffect(() => {
    if (canEdit) {
      editingMode.current = mode;
      return;
    }
    if (editingMode.current === 'renaming') setDiscarded('state name');
    else if (editingMode.current === 'labelling') setDiscarded('event name');
    editingMode.current = 'idle';
  }, [canEdit, mode]);

  const stage = useRef<HTMLDivElement>(null);
  const fit = useCallback(() => {
    const el = stage.current;
    if (!el || !layout) return;
    canvasSend({
      type: 'canvas.fit',
      bounds: { x: 0, y: 0, width: layout.width, height: layout.height },
      width: el.clientWidth,
      height: el.clientHeight,
    });
  }, [canvasSend, layout]);
  // Fit once, when the first layout arrives.
  const fitted = useRef(false);
  useEffect(() => {
    if (layout && !fitted.current) {
      fitted.current = true;
      fit();
    }
  }, [layout, fit]);

  const send = useCallback(
    (intent: CanvasIntent) => {
      if (USER_MOVES.has(intent.type)) onUserMove();
      canvasSend(intent);
    },
    [canvasSend, onUserMove],
  );

  // What this person looks at goes to presence; a followed person's view comes back (both need the stage's size).
  useEffect(() => {
    const el = stage.current;
    if (!el) return;
    presenceSend({
      type: 'presence.look',
      view: {
        x: (el.clientWidth / 2 - viewport.x) / viewport.zoom,
        y: (el.clientHeight / 2 - viewport.y) / viewport.zoom,
        zoom: viewport.zoom,
      },
    });
  }, [viewport, presenceSend]);
  useEffect(() => {
    const el = stage.current;
    if (!el || !followView) return;
    const { x, y, zoom } = followView;
    canvasSend({
      type: 'canvas.viewportFollowed',
      viewport: { zoom, x: el.clientWidth / 2 - x * zoom, y: el.clientHeight / 2 - y * zoom },
    });
  }, [canvasSend, followView]);

  // Find a state by name: open what hides it, select it, and bring it into view once laid out.
  const [find, setFind] = useState('');
  const [missed, setMissed] = useState<string | null>(null);
  const [focus, setFocus] = useState<string | null>(null);
  const names = useMemo(
    () =>
      [
        ...new Set(
          Object.values(definition.states)
            .filter((s) => s.parent !== null)
            .map((s) => s.key),
        ),
      ].sort(),
    [definition],
  );
  const onFind = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const q = find.trim().toLowerCase();
    if (q === '') return;
    const states = Object.values(definition.states).filter((s) => s.parent !== null);
    const hit = states.find((s) => s.key.toLowerCase() === q) ?? states.find((s) => s.key.toLowerCase().includes(q));
    setMissed(hit ? null : find.trim());
    if (!hit) return;
    setOpen(hiddenBy(definition, collapsed, hit.id), true);
    canvasSend({ type: 'canvas.select', id: hit.id, additive: false });
    setFocus(hit.id);
  };
  useEffect(() => {
    const node = focus ? layout?.nodes[focus] : undefined;
    const el = stage.current;
    if (!node || !el) return;
    setFocus(null);
    onUserMove();
    const pad = { x: Math.max(160, el.clientWidth / 3), y: Math.max(120, el.clientHeight / 3) };
    canvasSend({
      type: 'canvas.fit',
      bounds: { x: node.x - pad.x, y: node.y - pad.y, width: node.width + 2 * pad.x, height: node.height + 2 * pad.y },
      width: el.clientWidth,
      height: el.clientHeight,
    });
  }, [focus, layout, canvasSend, onUserMove]);

  // The stage's size, for the minimap's view box.
  const [stageSize, setStageSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = stage.current;
    if (!el) return;
    const measure = () =>
      setStageSize((s) =>
        s.width === el.clientWidth && s.height === el.clientHeight
          ? s
          : { width: el.clientWidth, height: el.clientHeight },
      );
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [view]);
  const jump = (x: number, y: number) => {
    onUserMove();
    canvasSend({
      type: 'canvas.viewportFollowed',
      viewport: {
        zoom: viewport.zoom,
        x: stageSize.width / 2 - x * viewport.zoom,
        y: stageSize.height / 2 - y * viewport.zoom,
      },
    });
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
      onUserMove();
      fit();
    } else if (action.type === 'view.zoom') zoom(action.factor);
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
    if (ex && canEdit) openSend({ type: 'machine.replace', definition: ex });
  };

  return (
    <div className="canvas-page">
      <div className="canvas-toolbar" role="toolbar" aria-label="Diagram tools">
        {canEdit && (
          <>
            <button
              type="button"
              disabled={!one}
              onClick={() => send({ type: 'canvas.addChild', id: randomIds('state') })}
              title="Add child state (Tab)"
            >
              Add child
            </button>
            <button
              type="button"
              disabled={!one}
              onClick={() => send({ type: 'canvas.addSibling', id: randomIds('state') })}
              title="Add sibling state (Shift+Enter)"
            >
              Add sibling
            </button>
            <button
              type="button"
              disabled={!one}
              onClick={() => one && send({ type: 'canvas.renameStart', id: one })}
              title="Rename (Enter or F2)"
            >
              Rename
            </button>
            <button
              type="button"
              disabled={selection.length === 0}
              onClick={() => send({ type: 'canvas.delete' })}
              title="Delete (Delete or Backspace)"
            >
              Delete
            </button>
            <span className="sep" />
            <button
              type="button"
              disabled={!onUndo}
              onClick={() => onUndo?.()}
              title="Undo (Ctrl/Cmd+Z)"
              aria-label="Undo"
            >
              ↶
            </button>
            <button
              type="button"
              disabled={!onRedo}
              onClick={() => onRedo?.()}
              title="Redo (Shift+Ctrl/Cmd+Z)"
              aria-label="Redo"
            >
              ↷
            </button>
            <span className="sep" />
          </>
        )}
        <button type="button" onClick={() => zoom(1 / 1.2)} aria-label="Zoom out">
          −
        </button>
        <span className="zoom" aria-live="polite">
          {Math.round(viewport.zoom * 100)}%
        </span>
        <button type="button" onClick={() => zoom(1.2)} aria-label="Zoom in">
          +
        </button>
        <button
          type="button"
          onClick={() => {
            onUserMove();
            fit();
          }}
          aria-label="Zoom to fit"
        >
          Fit
        </button>
        <span className="sep" />
        <div className="segmented" role="group" aria-label="View">
          {(['diagram', 'split', 'code'] as const).map((v) => (
            <button key={v} type="button" aria-pressed={view === v} onClick={() => setView(v)}>
              {v === 'split' ? 'Both' : v === 'diagram' ? 'Diagram' : 'Code'}
            </button>
          ))}
        </div>
        <form className="canvas-find" role="search" onSubmit={onFind}>
          <input
            type="search"
            aria-label="Find a state"
            placeholder="Find a state…"
            list="canvas-state-names"
            value={find}
            onChange={(e) => {
              setFind(e.target.value);
              setMissed(null);
            }}
          />
          <datalist id="canvas-state-names">
            {names.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          {missed !== null && (
            <span className="canvas-find-miss" role="status">
              No state named “{missed}”
            </span>
          )}
        </form>
        {(canEdit || onCreate) && (
          <select aria-label="Load example" value="" onChange={(e) => loadEx(e.target.value)}>
            <option value="">Examples…</option>
            {EXAMPLE_NAMES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        )}
        {!canEdit && <span className="badge">View only</span>}
      </div>
      {discarded !== null && <DiscardedEdit what={discarded} onDismiss={() => setDiscarded(null)} />}
      {replacing !== null && canEdit && (
        <div className="canvas-confirm" role="alertdialog" aria-labelledby="canvas-confirm-text">
          <span id="canvas-confirm-text">
            Replace this whole machine with the example “{replacing}”? Everyone here sees the change; Undo brings it
            back.
          </span>
          <button type="button" className="danger" onClick={() => replaceWith(replacing)}>
            Replace machine
          </button>
          <button type="button" onClick={() => setReplacing(null)}>
            Keep this machine
          </button>
        </div>
      )}
      <div className={`canvas-body view-${view}`}>
        {view !== 'code' && (
          <div className="canvas-stage" ref={stage} onPointerLeave={() => onPointer(null)}>
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
              activePaths={activePaths}
              hidden={hidden}
              onToggle={toggle}
            />
            {layout && Object.keys(definition.states).length > 30 && (
              <Minimap layout={layout} viewport={viewport} stage={stageSize} onJump={jump} />
            )}
            <PeerCursors peers={peers} viewport={viewport} />
            {!layout && (
              <p className="canvas-status" role="status">
                Laying out…
              </p>
            )}
            {layoutError && (
              <p className="canvas-status error" role="alert">
                {layoutError}
              </p>
            )}
          </div>
        )}
        {view !== 'diagram' && <CodeView canEdit={canEdit} />}
      </div>
    </div>
  );
}
