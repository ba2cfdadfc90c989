import { useSelector } from '@xstate/react';
import { createContext, useCallback, useContext } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { CanvasIntent, ViewChoice, Viewport } from '../../../machines/open-machine/canvas.machine.ts';
import type { PresenceIntent, CanvasPeer } from '../../../machines/open-machine/canvas-presence.machine.ts';
import type { DocumentIntent } from '../../../machines/open-machine/document.machine.ts';
import {
  documentDefinition,
  type openMachineMachine,
  type OpenMachineEvent,
} from '../../../machines/open-machine/open-machine.machine.ts';
import type { Layout } from '../../lib/layout/types.ts';
import type { Issue, MachineDefinition } from '../../lib/model/types.ts';
import type { PresenterOffer } from '../../lib/ports/canvas-presence.ts';
import { sameStrings, useChildSelector } from '../actor-hooks.ts';
import {
  diagramSimOf,
  NO_DIAGRAM_SIM,
  sameDiagramSim,
  shownStep,
  type DiagramSim,
} from '../simulation/simulation-selectors.ts';

/**
 * The machine open on the page, for its views: the open-machine actor (a child of the
 * room in the app, or a fixture's own in tests) is put in context by MachineView, and
 * everything under it reads its children (document, presence, layout, canvas) through
 * the named hooks below, one slice each, and sends intents through the senders.
 */

export type OpenMachineRef = ActorRefFrom<typeof openMachineMachine>;
type Children = SnapshotFrom<typeof openMachineMachine>['children'];

export const OpenMachineRefContext = createContext<OpenMachineRef | null>(null);

export function useOpenMachine(): OpenMachineRef {
  const ref = useContext(OpenMachineRefContext);
  if (!ref) throw new Error('useOpenMachine: render inside an OpenMachineRefContext provider (MachineView)');
  return ref;
}

function useChild<K extends keyof Children>(id: K): Children[K] {
  return useSelector(useOpenMachine(), (s) => s.children[id]);
}

// The document.

const NO_REASONS: string[] = [];

export type SyncStatus = 'loading' | 'failed' | 'offline' | 'saving' | 'syncing' | 'unsaved' | 'synced';

type DocumentSnapshot = SnapshotFrom<NonNullable<Children['document']>>;

/** From the document's tags; "Saved" only when the server acknowledged every edit (the `synced` tag). */
function syncOf(s: DocumentSnapshot): SyncStatus {
  if (s.hasTag('failed')) return 'failed';
  if (s.hasTag('loading')) return 'loading';
  if (s.hasTag('offline')) return 'offline';
  if (s.hasTag('unsaved')) return 'unsaved';
  if (s.hasTag('saving')) return 'saving';
  if (s.hasTag('synced')) return 'synced';
  return 'syncing';
}

const unsentOf = (s: DocumentSnapshot): number =>
  s.context.doc ? (s.context.doc.inflight?.ops.length ?? 0) + s.context.doc.pending.length : 0;

export const useDefinition = (): MachineDefinition | null =>
  useChildSelector(useChild('document'), documentDefinition, null);
export const useSyncStatus = (): SyncStatus => useChildSelector(useChild('document'), syncOf, 'loading');
/** This person's edits not yet acknowledged by the server. */
export const useUnsentCount = (): number => useChildSelector(useChild('document'), unsentOf, 0);
export const useDocumentError = (): string | null =>
  useChildSelector(useChild('document'), (s) => s.context.error, null);
/** Why this person's edits were dropped (last report), each reason once, in words. */
export const useDroppedReasons = (): string[] =>
  useChildSelector(
    useChild('document'),
    (s) => [...new Set(s.context.dropped.map((d) => d.reason))],
    NO_REASONS,
    sameStrings,
  );
export const useCanUndo = (): boolean =>
  useChildSelector(useChild('document'), (s) => s.context.history.undo.length > 0, false);
export const useCanRedo = (): boolean =>
  useChildSelector(useChild('document'), (s) => s.context.history.redo.length > 0, false);

export function useDocumentSend(): (intent: DocumentIntent) => void {
  const document = useChild('document');
  return useCallback((intent: DocumentIntent) => document?.send(intent), [document]);
}

// Presence.

const NO_PEERS: Record<string, CanvasPeer> = {};

export const useCanvasPeers = (): Record<string, CanvasPeer> =>
  useChildSelector(useChild('presence'), (s) => s.context.peers, NO_PEERS);
export const useFollowing = (): string | null =>
  useChildSelector(useChild('presence'), (s) => s.context.following, null);

const OPEN_OFFER: PresenterOffer = { followable: true, spotlight: false };
/** What this person offers the room: may others follow them, do they spotlight. */
export const usePresenterOffer = (): PresenterOffer =>
  useChildSelector(useChild('presence'), (s) => s.context.offer, OPEN_OFFER);
/** The presenter asking this person to follow them, not yet answered (null: nobody). */
export const useSpotlightAsk = (): string | null =>
  useChildSelector(useChild('presence'), (s) => s.context.asked, null);

export function usePresenceSend(): (intent: PresenceIntent) => void {
  const presence = useChild('presence');
  return useCallback((intent: PresenceIntent) => presence?.send(intent), [presence]);
}

// Layout.

export const useLayout = (): Layout | null => useChildSelector(useChild('layout'), (s) => s.context.layout, null);
export const useLayoutError = (): string | null => useChildSelector(useChild('layout'), (s) => s.context.error, null);
/** A layout is being made (the picture on screen may be about to change). */
export const useLayoutBusy = (): boolean => useChildSelector(useChild('layout'), (s) => s.hasTag('busy'), false);
/** Tells the layout the diagram pane's width / height (a chart far from it may be turned). */
export function usePaneShapeSend(): (aspect: number) => void {
  const layout = useChild('layout');
  return useCallback((aspect: number) => layout?.send({ type: 'layout.paneSized', aspect }), [layout]);
}

// The canvas.

export type CanvasMode = 'idle' | 'panning' | 'renaming' | 'connecting' | 'labelling';
type CanvasSnapshot = SnapshotFrom<NonNullable<Children['canvas']>>;

/** The gesture under way, from the canvas's tags (states stay the machine's own). */
function modeOf(s: CanvasSnapshot): CanvasMode {
  if (s.hasTag('panning')) return 'panning';
  if (s.hasTag('renaming')) return 'renaming';
  if (s.hasTag('labelling')) return 'labelling';
  if (s.hasTag('connecting')) return 'connecting';
  return 'idle';
}

const START: Viewport = { x: 24, y: 24, zoom: 1 };
const NONE: string[] = [];

export const useCanvasMode = (): CanvasMode => useChildSelector(useChild('canvas'), modeOf, 'idle');
export const useViewport = (): Viewport => useChildSelector(useChild('canvas'), (s) => s.context.viewport, START);
export const useSelection = (): string[] =>
  useChildSelector(useChild('canvas'), (s) => s.context.selection, NONE, sameStrings);
export const useEditingId = (): string | null => useChildSelector(useChild('canvas'), (s) => s.context.editing, null);
export const useConnectLine = () => useChildSelector(useChild('canvas'), (s) => s.context.connect, null);
export const useCanEditCanvas = (): boolean => useChildSelector(useChild('canvas'), (s) => s.context.canEdit, false);
const NO_VIEW_CHOICE: ViewChoice = { opened: [], closed: [] };
/** The compounds this person opened and closed on the diagram (the canvas machine's `choice`). */
export const useViewChoice = (): ViewChoice =>
  useChildSelector(useChild('canvas'), (s) => s.context.choice, NO_VIEW_CHOICE);

export function useCanvasSend(): (
  intent: CanvasIntent | { type: 'canvas.viewportFollowed'; viewport: Viewport },
) => void {
  const canvas = useChild('canvas');
  return useCallback(
    (intent: CanvasIntent | { type: 'canvas.viewportFollowed'; viewport: Viewport }) => canvas?.send(intent),
    [canvas],
  );
}

// The shared simulation.

export const useSimulationRef = () => useChild('simulation');
/** Whether this person may send simulation events (members, not guests: the room says, the open machine tells). */
export const useCanSendSim = (): boolean => useChildSelector(useChild('simulation'), (s) => s.context.canSend, false);
/** Dot paths of the states active in the simulation step shown: the diagram's highlight. */
export const useActivePaths = (): string[] =>
  useChildSelector(useChild('simulation'), (s) => shownStep(s)?.activePaths ?? NONE, NONE, sameStrings);

/** The simulation on the diagram: active states, transitions enabled now and just taken. */
export const useDiagramSim = (): DiagramSim =>
  useChildSelector(useChild('simulation'), diagramSimOf, NO_DIAGRAM_SIM, sameDiagramSim);

/**
 * Sends an event of the shared simulation from the diagram: the same intent as the
 * Simulation panel's event buttons (`sim.send`, no payload; payloads stay in the panel).
 */
export function useSimSendEvent(): (eventType: string) => void {
  const simulation = useChild('simulation');
  return useCallback(
    (eventType: string) => simulation?.send({ type: 'sim.send', eventType, payload: {} }),
    [simulation],
  );
}

/** Dismisses the simulation's message (from the canvas as from the panel). */
export function useSimDismissError(): () => void {
  const simulation = useChild('simulation');
  return useCallback(() => simulation?.send({ type: 'sim.dismissError' }), [simulation]);
}

// The timeline.

export const useTimelineRef = () => useChild('timeline');

// The Inspector, the tests and the room's test plays (read through their own selector files).

export const useInspectorRef = () => useChild('inspector');
export const useTestsRef = () => useChild('tests');
export const useTestPlaybackRef = () => useChild('testPlayback');

// The code view.

export const useCodeRef = () => useChild('code');
export const useCodeDirty = (): boolean => useChildSelector(useChild('code'), (s) => s.hasTag('dirty'), false);
const NO_ISSUES: Issue[] = [];
export const useCodeErrors = (): Issue[] => useChildSelector(useChild('code'), (s) => s.context.errors, NO_ISSUES);

export function useOpenMachineSend(): (event: OpenMachineEvent) => void {
  const open = useOpenMachine();
  return useCallback((event: OpenMachineEvent) => open.send(event), [open]);
}
