import { useCallback, useMemo, useState, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import type { CanvasIntent } from '../../../machines/open-machine/canvas.machine.ts';
import type { Box } from '../../lib/layout/types.ts';
import { randomIds } from '../../lib/model/ids.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import { CanvasToolbar } from './CanvasToolbar.tsx';
import { CommentPlacer } from '../comments/CommentPlacer.tsx';
import { Diagram } from './Diagram.tsx';
import { loadExample } from './examples.ts';
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
  useLayout,
  useLayoutBusy,
  useLayoutError,
  useOpenMachineSend,
  usePresenceSend,
  useSelection,
  useDiagramSim,
  useSimDismissError,
  useSimSendEvent,
  useViewport,
} from './open-machine-context.ts';
import { placeCursors, PeerCursors, type PeerCursor } from './PeerCursors.tsx';
import { ReplaceConfirm } from './ReplaceConfirm.tsx';
import { DiscardedEdit } from '../room/DiscardedEdit.tsx';
import type { PeerMark } from './shapes.tsx';
import { useTestMarks } from '../tests/tests-selectors.ts';
import { useCommentsSend } from '../comments/comments-selectors.ts';
import { ProposalBanner, useDraftOf, useProposalsRef } from '../proposals/index.ts';
import { ReviewBanner } from '../versions/ReviewBanner.tsx';
import { useCanvasReview, type CanvasReview } from '../versions/versions-selectors.ts';
import type { DiagramMarks } from './shapes.tsx';
import { useCollapsed } from './useCollapsed.ts';
import { useDiscardedEdit } from './useDiscardedEdit.ts';
import { useFind } from './useFind.ts';
import { useStage } from './useStage.ts';
import './canvas.css';

export interface CanvasPageProps {
  /** The definition on screen (the open machine's document). */
  definition: MachineDefinition;
  /** Everyone else's cursor and selection on this machine, with their names and colours. */
  peers?: PeerCursor[];
  /** Loading an example creates a new machine when given; otherwise it replaces this one (as ops). */
  onCreate?: (name: string, definition: MachineDefinition) => void;
  /** Where the tools go: the page's one bar (the machine page's); in line above the diagram when absent. */
  toolbarHost?: HTMLElement | null;
}

/** Gestures by which a person moves their own view. */
const USER_MOVES = new Set<CanvasIntent['type']>(['canvas.panStart', 'canvas.zoomAt', 'canvas.fit']);
/** What reaches the canvas machine while a version or diff is shown: looking around, never an edit. */
const REVIEW_MOVES = new Set<CanvasIntent['type']>([
  ...USER_MOVES,
  'canvas.panBy',
  'canvas.panEnd',
  'canvas.paneSized',
]);
const NO_MARKS: PeerMark[] = [];
const NO_PLAYED: ReadonlySet<string> = new Set();

/** The diff's marks on the picture of a version or diff shown (none for a version opened). */
const reviewMarks = (review: CanvasReview): DiagramMarks => ({
  covered: null,
  played: NO_PLAYED,
  diff: review.view.diff?.marks,
});

/**
 * A machine's diagram, filling the machine page at /p/:projectId/m/:machineId beside its
 * side panel, inside the open machine's context; its tools go into the page's bar. It reads the canvas,
 * layout, document and presence through named hooks and sends intents; the open machine
 * routes gestures to the document as ops and new definitions to the layout. The parts
 * live beside it: the toolbar, the collapsed view (useCollapsed), the stage's view
 * (useStage) and find (useFind).
 */
export function CanvasPage({ definition: live, peers: livePeers = [], onCreate, toolbarHost }: CanvasPageProps) {
  // A version or diff shown (this person's own look, from the versions machine) is drawn
  // here in place of the live chart, read-only: its definition, its layout, its marks.
  // MachineView keys this page by what is shown, so each is fitted afresh when it arrives.
  const review = useCanvasReview();
  const definition = review ? review.view.definition : live;
  const peers = review ? [] : livePeers;
  const draftOf = useDraftOf(useProposalsRef());
  const mayEdit = useCanEditCanvas();
  const canEdit = mayEdit && !review;
  const liveLayout = useLayout();
  const layout = review ? review.layout : liveLayout;
  const layoutError = useLayoutError();
  const layoutBusy = useLayoutBusy() || (review !== null && review.layout === null);
  const viewport = useViewport();
  const liveSelection = useSelection();
  const selection = useMemo(
    () => (review ? (review.selected ? [review.selected] : []) : liveSelection),
    [review, liveSelection],
  );
  const editing = useEditingId();
  const connect = useConnectLine();
  const mode = useCanvasMode();
  const canUndo = useCanUndo();
  const canRedo = useCanRedo();
  const simulation = useDiagramSim();
  const liveMarks = useTestMarks();
  const testMarks = useMemo(() => (review ? reviewMarks(review) : liveMarks), [review, liveMarks]);
  const onSimSend = useSimSendEvent();
  const onSimDismiss = useSimDismissError();
  const canvasSend = useCanvasSend();
  const docSend = useDocumentSend();
  const presenceSend = usePresenceSend();
  const openSend = useOpenMachineSend();
  const commentsSend = useCommentsSend();
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
    () => (review ? NO_MARKS : peers.map(({ id, name, color, selection }) => ({ id, name, color, selection }))),
    [marksKey, review === null],
  );

  // Fit's overview is chosen for the pane's size, which useStage tells the canvas machine.
  const { collapsed, hidden, setOpen, toggle } = useCollapsed(definition);
  const [discarded, dismissDiscarded] = useDiscardedEdit(canEdit, mode);

  const reviewActor = review?.actor;
  const send = useCallback(
    (intent: CanvasIntent) => {
      if (USER_MOVES.has(intent.type)) onUserMove();
      if (!reviewActor) canvasSend(intent);
      // Shown read-only: picking an element selects it in the versions' view (not shared), and nothing edits.
      else if (intent.type === 'canvas.select') reviewActor.send({ type: 'versions.select', id: intent.id });
      else if (intent.type === 'canvas.clearSelection') reviewActor.send({ type: 'versions.select', id: null });
      else if (REVIEW_MOVES.has(intent.type)) canvasSend(intent);
    },
    [canvasSend, onUserMove, reviewActor],
  );
  const stage = useStage(viewport, send, onUserMove);
  const find = useFind(definition, collapsed, setOpen, stage.find);
  const fitByUser = () => {
    onUserMove();
    stage.fit();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const action = keyAction(e, selection, () => randomIds('state'));
    if (!action) return;
    e.preventDefault();
    if (review && action.type !== 'view.fit' && action.type !== 'view.zoom') return;
    if (action.type === 'doc.undo') onUndo?.();
    else if (action.type === 'doc.redo') onRedo?.();
    else if (action.type === 'view.fit') fitByUser();
    else if (action.type === 'view.zoom') stage.zoom(action.factor);
    else send(action);
  };
  // A comment pin chosen: its thread comes forward in the Comments panel, and its anchor is
  // selected here; the pin stays in view (on a phone the panel opens as a sheet that may cover it).
  const onPin = (threadId: string, target: string, box: Box | null) => {
    // A point's pin has nothing to select.
    if (target) send({ type: 'canvas.select', id: target, additive: false });
    if (box) send({ type: 'canvas.keepInView', box });
    commentsSend({ type: 'comments.focus', threadId });
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

  const toolbar = (
    <CanvasToolbar
      canEdit={canEdit}
      one={one}
      selected={selection.length}
      send={send}
      onUndo={review ? undefined : onUndo}
      onRedo={review ? undefined : onRedo}
      reviewing={review !== null}
      zoom={viewport.zoom}
      onZoom={stage.zoom}
      onFit={fitByUser}
      find={find}
      onExample={!review && (canEdit || onCreate) ? loadEx : undefined}
    />
  );

  return (
    <div className="canvas-page">
      {toolbarHost ? createPortal(toolbar, toolbarHost) : toolbar}
      {discarded !== null && <DiscardedEdit what={discarded} onDismiss={dismissDiscarded} />}
      {replacing !== null && canEdit && (
        <ReplaceConfirm
          example={replacing}
          onReplace={() => replaceWith(replacing)}
          onKeep={() => setReplacing(null)}
        />
      )}
      <div className={review || draftOf ? 'canvas-body is-reviewing' : 'canvas-body'}>
        {(review || draftOf) && (
          // Strips above the canvas, not over it: Fit frames the chart in what is left.
          <div className="canvas-strips">
            <ProposalBanner />
            {review && <ReviewBanner review={review} canEdit={mayEdit} />}
          </div>
        )}
        <div
          className="canvas-stage"
          role="region"
          aria-label="Diagram"
          ref={stage.ref}
          onPointerLeave={() => onPointer(null)}
          data-layout={layoutBusy ? 'busy' : 'ready'}
          data-review={review ? review.view.kind : undefined}
          data-direction={layout?.direction ?? 'RIGHT'}
        >
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
            simulation={review ? undefined : simulation}
            marks={testMarks}
            onSimSend={onSimSend}
            onSimDismiss={onSimDismiss}
            hidden={review ? review.hidden : hidden}
            onToggle={review ? undefined : toggle}
            pins={!review}
            onPin={onPin}
          />
          {layout && Object.keys(definition.states).length > 30 && (
            <Minimap layout={layout} viewport={viewport} stage={stage.size} onJump={stage.jump} />
          )}
          {!review && <PeerCursors peers={placeCursors(peers, layout)} viewport={viewport} />}
          {!review && <CommentPlacer />}
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
      </div>
    </div>
  );
}
