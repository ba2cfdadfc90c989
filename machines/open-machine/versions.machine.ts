import { assertEvent, assign, enqueueActions, setup } from 'xstate';
import { versionDiff, type VersionDiff } from '../../src/lib/canvas-ops/version-diff.ts';
import type { Layout } from '../../src/lib/layout/types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { SavedVersion, VersionsFact, VersionsResult } from '../../src/lib/ports/versions.ts';
import { layoutMachine } from './layout.machine.ts';
import {
  byMachine,
  listRegion,
  output,
  request,
  requestFirst,
  requestNotProvided,
  streamNotProvided,
  UNEXPECTED,
  value,
  type Host,
} from '../shared.ts';
import { reviewShown } from '../../src/lib/layout/review-collapse.ts';
import { shownKey } from '../../src/lib/layout/shown-key.ts';

/**
 * A machine's named versions, invoked by the open machine, which tells it where the log's
 * head is and what the definition is now (`versions.headMoved`, from the document).
 * Parallel regions:
 * - `list` reads the versions and keeps them live (`changes`), reading again after a rejoin;
 * - `naming`: Save version asks for a name (`versions.startNaming`), then names the head;
 * - `view`: a version opened read-only, or compared with now or with another version (the
 *   diff in words and per element, drawn as the union of both: src/lib/canvas-ops/
 *   version-diff.ts), or any two definitions another part wants compared (`view.diff`, a
 *   proposal's review), laid out by its own `viewLayout` for the main canvas's shape (the
 *   canvas draws what is shown in place of the live chart, read-only, for this person
 *   only); `versions.restore` reads a version and asks the `editor` (the open machine) to
 *   make the machine that again (`machine.replace`: ordinary undoable ops, as the
 *   timeline's restore does).
 */

export type VersionsIntent =
  | { type: 'versions.startNaming' }
  | { type: 'versions.cancelNaming' }
  | { type: 'versions.save'; name: string }
  | { type: 'versions.open'; id: string }
  /** Compare version `id` with version `against`, or with now when absent. */
  | { type: 'versions.compare'; id: string; against?: string | null }
  | { type: 'versions.select'; id: string | null }
  | { type: 'versions.close' }
  | { type: 'versions.restore'; id: string }
  | { type: 'versions.retry' }
  | { type: 'versions.dismissError' }
  | ViewDiffIntent;

/**
 * Show the diff between any two definitions on the main canvas, as a version compared is
 * shown (read-only, marked, with its Changes), under `label` ("Proposal: retries capped");
 * `versions.close` (Back to now) ends it. For callers beyond the Versions panel.
 */
export type ViewDiffIntent = { type: 'view.diff'; before: MachineDefinition; after: MachineDefinition; label: string };

export type VersionsNotice =
  | { type: 'versions.headMoved'; version: number; definition: MachineDefinition }
  /** The main canvas's pane, in px: what is shown is collapsed and laid out for it, as the live chart is. */
  | { type: 'versions.paneSized'; width: number; height: number };

export type VersionsEvent = VersionsIntent | VersionsNotice | VersionsFact;

/** What the view shows: one version read-only, or a diff (`against` null: now). */
export interface VersionView {
  kind: 'open' | 'compare';
  /** The version shown or compared; null for a diff another part asked for (`view.diff`). */
  version: SavedVersion | null;
  against: SavedVersion | null;
  /** What the canvas's banner calls it: "v2", "v2 → now", or the caller's label. */
  label: string;
  /** What is drawn: the version, or the union of both sides of the diff. */
  definition: MachineDefinition;
  diff: VersionDiff | null;
}

/** What the canvas draws of the view: collapsed for the pane (changes kept open) and laid out. */
export interface ViewDrawn {
  /** The definition as laid out (its collapsed compounds closed). */
  shown: MachineDefinition;
  /** Collapsed compounds, with how many states each hides. */
  hidden: Record<string, number>;
}

interface Wanted {
  kind: 'open' | 'compare' | 'restore';
  version: SavedVersion;
  against: SavedVersion | null;
}

/**
 * The open machine, told to restore a definition, and what picture the canvas should show
 * for this view (`layout`: the version's or diff's, once laid out; null: now again).
 */
export type VersionsEditor = Host<
  { type: 'machine.replace'; definition: MachineDefinition } | { type: 'machine.reviewLaidOut'; layout: Layout | null }
>;

export interface VersionsInput {
  machineId: string;
  editor?: VersionsEditor | null;
}

export interface VersionsContext {
  machineId: string;
  editor: VersionsEditor | null;
  versions: SavedVersion[];
  /** The log's head the document has applied, and the definition now (with this person's unsent edits). */
  head: number | null;
  current: MachineDefinition | null;
  /** The main canvas's pane, once measured (null: laid out about square, nothing collapsed for it). */
  pane: { width: number; height: number } | null;
  /** The view as drawn, once asked for. */
  drawn: ViewDrawn | null;
  wanted: Wanted | null;
  view: VersionView | null;
  /** The Changes entry chosen: selected on the diagram. */
  selected: string | null;
  error: string | null;
}

type Definitions = VersionsResult<MachineDefinition[]>;

/** The shape (width / height) a version or diff is laid out for before the canvas was measured. */
const VIEW_ASPECT = 1;

const bySeq = (a: SavedVersion, b: SavedVersion): number => a.seq - b.seq || a.createdAt.localeCompare(b.createdAt);

const withVersion = (list: SavedVersion[], v: SavedVersion): SavedVersion[] =>
  list.some((x) => x.id === v.id) ? list : [...list, v].sort(bySeq);

export const versionsMachine = setup({
  types: {
    input: {} as VersionsInput,
    context: {} as VersionsContext,
    events: {} as VersionsEvent,
    children: {} as {
      changes: 'changes';
      listVersions: 'listVersions';
      saveVersion: 'saveVersion';
      readDefinitions: 'readDefinitions';
      viewLayout: 'viewLayout';
    },
    tags: {} as 'loading' | 'naming' | 'busy' | 'reading' | 'showing' | 'failed',
  },
  actors: {
    changes: streamNotProvided<VersionsFact, { machineId: string }>('versions', 'changes'),
    listVersions: requestNotProvided<VersionsResult<SavedVersion[]>, { machineId: string }>('versions', 'listVersions'),
    saveVersion: requestNotProvided<VersionsResult<SavedVersion>, { machineId: string; name: string; seq: number }>(
      'versions',
      'saveVersion',
    ),
    readDefinitions: requestNotProvided<Definitions, { machineId: string; seqs: number[] }>(
      'versions',
      'readDefinitions',
    ),
    viewLayout: layoutMachine,
  },
  guards: {
    refused: (_, output: VersionsResult<unknown>) => !output.ok,
    isShape: ({ event }) =>
      event.type === 'versions.paneSized' &&
      Number.isFinite(event.width) &&
      Number.isFinite(event.height) &&
      event.width > 0 &&
      event.height > 0,
    headChanged: ({ context, event }) =>
      event.type === 'versions.headMoved' && (event.version !== context.head || event.definition !== context.current),
    knownVersion: ({ context, event }) =>
      'id' in event && typeof event.id === 'string' && context.versions.some((v) => v.id === event.id),
    canName: ({ context, event }) =>
      event.type === 'versions.save' && event.name.trim() !== '' && context.head !== null,
    /** A restore's definitions read: they go to the editor, not to the view. */
    restoreRead: ({ context }, output: Definitions) => output.ok && context.wanted?.kind === 'restore',
  },
  actions: {
    setHead: assign(({ event }) => {
      assertEvent(event, 'versions.headMoved');
      return { head: event.version, current: event.definition };
    }),
    setVersions: assign((_, output: VersionsResult<SavedVersion[]>) =>
      output.ok ? { versions: [...output.value].sort(bySeq) } : {},
    ),
    addVersion: assign(({ context }, version: SavedVersion) => ({ versions: withVersion(context.versions, version) })),
    versionAdded: assign(({ context, event }) => {
      assertEvent(event, 'versions.added');
      return { versions: withVersion(context.versions, event.version) };
    }),
    want: assign(({ context, event }) => {
      assertEvent(event, ['versions.open', 'versions.compare', 'versions.restore']);
      const find = (id: string | null | undefined) => context.versions.find((v) => v.id === id) ?? null;
      const version = find(event.id) as SavedVersion;
      const kind = event.type === 'versions.open' ? 'open' : event.type === 'versions.compare' ? 'compare' : 'restore';
      const against = event.type === 'versions.compare' ? find(event.against) : null;
      return { wanted: { kind, version, against }, error: null };
    }),
    showView: assign(({ context }, output: Definitions) => {
      const wanted = context.wanted;
      if (!output.ok || !wanted || wanted.kind === 'restore') return {};
      const [definition, other] = output.value as [MachineDefinition, MachineDefinition | undefined];
      const { version, against } = wanted;
      if (wanted.kind === 'open')
        return {
          view: { kind: 'open', version, against: null, label: version.name, definition, diff: null },
          selected: null,
        };
      const now = other ?? context.current ?? definition;
      const diff = versionDiff(definition, now);
      const label = `${version.name} → ${against ? against.name : 'now'}`;
      return { view: { kind: 'compare', version, against, label, definition: diff.union, diff }, selected: null };
    }),
    showDiff: assign(({ event }) => {
      assertEvent(event, 'view.diff');
      const diff = versionDiff(event.before, event.after);
      const label = event.label.trim() || 'Changes';
      return {
        view: { kind: 'compare' as const, version: null, against: null, label, definition: diff.union, diff },
        wanted: null,
        selected: null,
        error: null,
      };
    }),
    setPane: assign(({ event }) => {
      assertEvent(event, 'versions.paneSized');
      return { pane: { width: event.width, height: event.height } };
    }),
    restore: enqueueActions(({ context, enqueue }, output: Definitions) => {
      const definition = output.ok ? output.value[0] : undefined;
      if (definition && context.editor) enqueue.sendTo(context.editor, { type: 'machine.replace', definition });
    }),
    layOutView: enqueueActions(({ context, enqueue }) => {
      if (!context.view) return;
      // Drawn on the main canvas: collapsed and laid out for its pane, as the live chart is (about square until measured).
      const { pane, view } = context;
      const { view: shown, hidden } = reviewShown(view.definition, view.diff?.marks, pane);
      if (context.drawn && shownKey(context.drawn.shown) === shownKey(shown)) return;
      enqueue.assign({ drawn: { shown, hidden } });
      enqueue.sendTo('viewLayout', { type: 'layout.paneSized', aspect: pane ? pane.width / pane.height : VIEW_ASPECT });
      enqueue.sendTo('viewLayout', { type: 'layout.request', definition: shown });
    }),
    /** The canvas shows the view's layout once it is laid out for what is drawn; leaving the view, now again. */
    tellShown: enqueueActions(
      ({ context, enqueue }, laid: { laidOut: MachineDefinition | null; layout: Layout | null } | null) => {
        if (!context.editor) return;
        const layout = laid && context.drawn && laid.laidOut === context.drawn.shown ? laid.layout : null;
        if (laid && !layout) return;
        enqueue.sendTo(context.editor, { type: 'machine.reviewLaidOut', layout });
      },
    ),
    select: assign(({ event }) => {
      assertEvent(event, 'versions.select');
      return { selected: event.id };
    }),
    closeView: assign({ view: null, selected: null, wanted: null, drawn: null }),
    forgetDrawn: assign({ drawn: null }),
    showRefusal: assign((_, output: VersionsResult<unknown>) => ({ error: output.ok ? null : output.error.message })),
    showUnexpected: assign({ error: UNEXPECTED }),
    showNameProblem: assign({ error: 'A version needs a name.' }),
    clearError: assign({ error: null }),
  },
}).createMachine({
  id: 'versions',
  context: ({ input }) => ({
    machineId: input.machineId,
    editor: input.editor ?? null,
    versions: [],
    head: null,
    current: null,
    pane: null,
    drawn: null,
    wanted: null,
    view: null,
    selected: null,
    error: null,
  }),
  invoke: {
    id: 'changes',
    src: 'changes',
    input: ({ context }) => ({ machineId: context.machineId }),
  },
  on: {
    'versions.headMoved': { guard: 'headChanged', actions: 'setHead' },
    'versions.paneSized': { guard: 'isShape', actions: 'setPane' },
    'versions.added': { actions: 'versionAdded' },
    'versions.dismissError': { actions: 'clearError' },
  },
  type: 'parallel',
  states: {
    list: listRegion({
      read: {
        id: 'listVersions',
        src: 'listVersions',
        input: byMachine,
        ...request({
          refused: { target: 'failed', actions: { type: 'showRefusal', params: output } },
          done: { target: 'live', actions: { type: 'setVersions', params: output } },
          threw: { target: 'failed', actions: 'showUnexpected' },
        }),
      },
      // Back after a drop, or a version deleted: the table has what was missed.
      again: { 'versions.subscribed': 'loading', 'versions.removed': 'loading' },
      states: { failed: { tags: ['failed'], on: { 'versions.retry': 'loading', 'versions.subscribed': 'loading' } } },
    }),
    naming: {
      initial: 'idle',
      states: {
        idle: {
          on: { 'versions.startNaming': { target: 'asking', actions: 'clearError' } },
        },
        asking: {
          tags: ['naming'],
          on: {
            'versions.cancelNaming': { target: 'idle', actions: 'clearError' },
            'versions.save': [
              { guard: 'canName', target: 'saving', actions: 'clearError' },
              { actions: 'showNameProblem' },
            ],
          },
        },
        saving: {
          tags: ['naming', 'busy'],
          invoke: {
            id: 'saveVersion',
            src: 'saveVersion',
            input: ({ context, event }) => {
              assertEvent(event, 'versions.save');
              return { machineId: context.machineId, name: event.name.trim(), seq: context.head ?? 0 };
            },
            ...request({
              refused: { target: 'asking', actions: { type: 'showRefusal', params: output } },
              done: { target: 'idle', actions: { type: 'addVersion', params: value } },
              threw: { target: 'asking', actions: 'showUnexpected' },
            }),
          },
        },
      },
    },
    view: {
      initial: 'closed',
      on: {
        'versions.open': { guard: 'knownVersion', target: '.reading', actions: 'want' },
        'versions.compare': { guard: 'knownVersion', target: '.reading', actions: 'want' },
        'versions.restore': { guard: 'knownVersion', target: '.reading', actions: 'want' },
        // Entered afresh (a new layout) even from another diff shown.
        'view.diff': { target: '.shown', reenter: true, actions: 'showDiff' },
      },
      states: {
        closed: {},
        reading: {
          tags: ['reading'],
          invoke: {
            id: 'readDefinitions',
            src: 'readDefinitions',
            input: ({ context }) => ({
              machineId: context.machineId,
              seqs: context.wanted
                ? [context.wanted.version.seq, ...(context.wanted.against ? [context.wanted.against.seq] : [])]
                : [],
            }),
            ...requestFirst({
              first: {
                guard: { type: 'restoreRead', params: output },
                target: 'closed',
                actions: [{ type: 'restore', params: output }, 'closeView'],
              },
              refused: { target: 'closed', actions: [{ type: 'showRefusal', params: output }, 'closeView'] },
              done: { target: 'shown', actions: { type: 'showView', params: output } },
              threw: { target: 'closed', actions: ['showUnexpected', 'closeView'] },
            }),
          },
        },
        shown: {
          tags: ['showing'],
          invoke: {
            id: 'viewLayout',
            src: 'viewLayout',
            onSnapshot: { actions: { type: 'tellShown', params: ({ event }) => event.snapshot.context } },
          },
          exit: { type: 'tellShown', params: () => null },
          initial: 'drawn',
          // Entered after the invoke above started, so the layout is there to ask.
          states: { drawn: { entry: ['forgetDrawn', 'layOutView'] } },
          on: {
            'versions.select': { actions: 'select' },
            'versions.paneSized': { guard: 'isShape', actions: ['setPane', 'layOutView'] },
            'versions.close': { target: 'closed', actions: 'closeView' },
          },
        },
      },
    },
  },
});

export type VersionsMachine = typeof versionsMachine;
