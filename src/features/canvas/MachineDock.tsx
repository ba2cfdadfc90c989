import { memo, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import { VersionsSlot } from '../versions/index.ts';
import { ProposalsSlot, useDraftOf, useProposalsRef } from '../proposals/index.ts';
import {
  CommentsPanel,
  useComposing,
  useFocusedThread,
  useHasComments,
  useUnread,
  useWentTo,
} from '../comments/index.ts';
import { PanelBoundary } from './PanelBoundary.tsx';
import './side-panel.css';
import './dock-sheet.css';

export type DockPanel =
  'code' | 'inspector' | 'simulation' | 'tests' | 'timeline' | 'versions' | 'comments' | 'proposals';

/** A tab's icon: a 16 px line drawing (SVG, so it never depends on a font having the glyph). */
const icon = (d: string) => (
  <svg
    width="16"
    height="16"
    viewBox="0 0 16 16"
    fill="none"
    stroke="currentColor"
    strokeWidth="1.5"
    strokeLinecap="round"
    strokeLinejoin="round"
  >
    <path d={d} />
  </svg>
);

/** The panels in the order of their tabs: each is a region named by its title, opened by a tab of the same name. */
export const DOCK_PANELS: readonly { key: DockPanel; title: string; icon: ReactNode }[] = [
  { key: 'code', title: 'Code', icon: icon('M5.5 4 2 8l3.5 4M10.5 4 14 8l-3.5 4') },
  { key: 'inspector', title: 'Inspector', icon: icon('M2.5 3.5h11M2.5 8h11M2.5 12.5h7M11.5 11v3M10 12.5h3') },
  { key: 'simulation', title: 'Simulation', icon: icon('M4.5 3v10l8.5-5z') },
  { key: 'tests', title: 'Tests', icon: icon('M2.5 8.5 6 12l7.5-8') },
  { key: 'timeline', title: 'Timeline', icon: icon('M8 2.5a5.5 5.5 0 1 1 0 11 5.5 5.5 0 0 1 0-11zM8 5v3.2l2.2 1.6') },
  { key: 'versions', title: 'Versions', icon: icon('M4 2.5h6l2.5 2.5v8.5H4zM6.5 7.5h4M6.5 10h4') },
  { key: 'comments', title: 'Comments', icon: icon('M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z') },
  { key: 'proposals', title: 'Proposals', icon: icon('M4.5 2.5v11M4.5 6.5c0 2 1.5 3 4 3h3M11.5 7.5l2 2-2 2') },
];

/** This person's choice: which tab, whether its panel is open (or collapsed to the strip), how wide. */
export interface DockPrefs {
  tab: DockPanel;
  open: boolean;
  width: number;
}

export const PANEL_MIN = 280;
export const PANEL_MAX = 600;
const STRIP = 40;
const STEP = 16;
const DEFAULT: DockPrefs = { tab: 'inspector', open: true, width: 340 };
const PHONE = '(max-width: 720px)';

const isPhone = () => typeof window !== 'undefined' && !!window.matchMedia?.(PHONE).matches;

/**
 * The widest the panel may be in this window: the diagram keeps at least 64% of the width
 * (canvas first), whatever width was remembered on a larger screen. side-panel.css says the
 * same, so a window made smaller later clamps too.
 */
export function panelMax(windowWidth: number): number {
  return Math.max(PANEL_MIN, Math.min(PANEL_MAX, Math.floor(windowWidth * 0.36) - STRIP));
}

const clamp = (width: number) =>
  Math.round(Math.min(panelMax(typeof window === 'undefined' ? 1280 : window.innerWidth), Math.max(PANEL_MIN, width)));

const storageKey = (userId: string | null) => `chartroom.panels.${userId ?? 'anonymous'}`;

function remembered(userId: string | null): DockPrefs {
  // On a phone the canvas comes first: the sheet starts lowered, whatever was open elsewhere.
  const phone = isPhone();
  try {
    const raw = globalThis.localStorage?.getItem(storageKey(userId));
    const value = raw ? (JSON.parse(raw) as Partial<DockPrefs>) : {};
    const tab = DOCK_PANELS.some((p) => p.key === value.tab) ? (value.tab as DockPanel) : DEFAULT.tab;
    const open = typeof value.open === 'boolean' ? value.open : DEFAULT.open;
    const width = typeof value.width === 'number' && Number.isFinite(value.width) ? value.width : DEFAULT.width;
    return { tab, open: open && !phone, width: Math.min(PANEL_MAX, Math.max(PANEL_MIN, width)) };
  } catch {
    return { ...DEFAULT, open: !phone };
  }
}

function remember(userId: string | null, prefs: DockPrefs): void {
  try {
    globalThis.localStorage?.setItem(storageKey(userId), JSON.stringify(prefs));
  } catch {
    // Storage refused (private mode, quota): the choice lasts until the page closes.
  }
}

/**
 * A closed panel as it was last drawn: a new definition (a peer's edit) re-renders only
 * the open panel, the closed ones catch up when opened (what they subscribe to themselves
 * still updates them).
 */
const Kept = memo(
  function Kept({ children }: { children: ReactNode; closed: boolean }) {
    return <>{children}</>;
  },
  (_, next) => next.closed,
);

/**
 * The machine page's one side panel, on the right of the diagram: a strip of tabs (Code,
 * Inspector, Simulation, Tests, Timeline, Versions, Comments) and at most one open panel beside it, resizable by
 * its edge (drag, or the arrow keys on the focused edge) and collapsible to the strip.
 * Which tab is open, whether it is, and its width are this person's own choice (no one
 * else sees them, and they are remembered across reloads under the signed-in user's id),
 * so they are React state and local storage, not a machine. The closed panels stay
 * mounted: a generated path list or a scrolled timeline is still there when its tab is
 * chosen again. Each panel has a boundary of its own: one that throws says so in its
 * place, and tries again when `resetKey` (the definition) changes. On a phone the panel
 * is a bottom sheet (dock-sheet.css): tabs at the screen's foot, the open panel over the
 * diagram's lower part.
 */
export function MachineDock({
  panels: given,
  resetKey,
  userId,
}: {
  panels: Partial<Record<DockPanel, ReactNode>>;
  resetKey?: unknown;
  userId: string | null;
}) {
  const [prefs, setPrefs] = useState<DockPrefs>(() => remembered(userId));
  const update = (next: DockPrefs) => {
    setPrefs(next);
    remember(userId, next);
  };
  // The Comments panel joins the dock wherever the open machine has comments and someone is signed in.
  // Named versions sit beside the timeline: wherever the page has a Timeline, it has Versions.
  const hasComments = useHasComments() && userId !== null;
  // Proposals sit beside the versions on a machine (not on a proposal's draft: its banner says what it is).
  const proposalsRef = useProposalsRef();
  const isDraft = useDraftOf(proposalsRef) !== null;
  const panels = {
    ...given,
    ...(given.timeline && !given.versions ? { versions: <VersionsSlot /> } : {}),
    ...(hasComments && !given.comments ? { comments: <CommentsPanel /> } : {}),
    ...(given.timeline && proposalsRef && !isDraft && !given.proposals ? { proposals: <ProposalsSlot /> } : {}),
  };
  const unread = useUnread();
  // Starting a thread (the Comment tool) opens the Comments panel, where its text box is.
  const composing = useComposing();
  const [composed, setComposed] = useState(composing);
  if (composing !== composed) {
    setComposed(composing);
    if (composing && hasComments) update({ ...prefs, tab: 'comments', open: true });
  }
  // So does a comment pin chosen on the diagram (its thread is brought forward there).
  const focused = useFocusedThread();
  const [focusSeen, setFocusSeen] = useState(focused);
  if (focused !== focusSeen) {
    setFocusSeen(focused);
    if (focused && hasComments) update({ ...prefs, tab: 'comments', open: true });
  }
  // A thread's timeline entry or simulation step gone to from the Comments panel opens the panel that shows it.
  const wentTo = useWentTo();
  const [wentSeen, setWentSeen] = useState(wentTo);
  if (wentTo !== wentSeen) {
    setWentSeen(wentTo);
    const tab: DockPanel = wentTo?.anchor.kind === 'step' ? 'simulation' : 'timeline';
    if (wentTo && panels[tab]) update({ ...prefs, tab, open: true });
  }
  const shown = DOCK_PANELS.filter((p) => Boolean(panels[p.key]));
  const current = shown.find((p) => p.key === prefs.tab) ?? shown[0];
  const open = prefs.open && current !== undefined;
  const choose = (key: DockPanel) =>
    update(open && current?.key === key ? { ...prefs, open: false } : { ...prefs, tab: key, open: true });

  // Dragging the edge: the panel grows as the pointer moves left.
  const drag = useRef<{ x: number; width: number; id: number } | null>(null);
  const [dragging, setDragging] = useState(false);
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, width: clamp(prefs.width), id: e.pointerId };
    setDragging(true);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.id !== e.pointerId) return;
    setPrefs((p) => ({ ...p, width: clamp(d.width + (d.x - e.clientX)) }));
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.id !== e.pointerId) return;
    drag.current = null;
    setDragging(false);
    update({ ...prefs, width: clamp(d.width + (d.x - e.clientX)) });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const width = clamp(prefs.width);
    const next =
      e.key === 'ArrowLeft'
        ? width + STEP
        : e.key === 'ArrowRight'
          ? width - STEP
          : e.key === 'Home'
            ? PANEL_MIN
            : e.key === 'End'
              ? PANEL_MAX
              : null;
    if (next === null) return;
    e.preventDefault();
    update({ ...prefs, width: clamp(next) });
  };
  const width = clamp(prefs.width);

  return (
    <aside
      className="machine-dock"
      aria-label="Side panel"
      data-open={open && current ? current.key : 'none'}
      data-dragging={dragging || undefined}
      style={{ ['--panel-w' as string]: `${width}px` }}
    >
      {open && (
        <div
          className="dock-resize"
          role="separator"
          aria-orientation="vertical"
          aria-label="Resize panel"
          aria-valuemin={PANEL_MIN}
          aria-valuemax={typeof window === 'undefined' ? PANEL_MAX : panelMax(window.innerWidth)}
          aria-valuenow={width}
          title="Drag, or use the arrow keys, to resize"
          tabIndex={0}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={onPointerUp}
          onKeyDown={onKeyDown}
        />
      )}
      <div className="dock-panels">
        {shown.map((p) => (
          <div key={p.key} id={`dock-panel-${p.key}`} className="machine-dock-panel" data-panel={p.key}>
            <PanelBoundary name={`The ${p.title} panel`} resetKey={resetKey}>
              <Kept closed={!open || current?.key !== p.key}>{panels[p.key]}</Kept>
            </PanelBoundary>
          </div>
        ))}
      </div>
      <div className="machine-dock-tabs" role="group" aria-label="Panels">
        {shown.map((p) => (
          <button
            key={p.key}
            type="button"
            aria-label={p.title}
            aria-description={p.key === 'comments' && unread.threads > 0 ? `${unread.threads} unread` : undefined}
            title={p.title}
            aria-pressed={open && current?.key === p.key}
            aria-controls={`dock-panel-${p.key}`}
            onClick={() => choose(p.key)}
          >
            <span className="dock-tab-icon" aria-hidden="true">
              {p.icon}
            </span>
            <span className="dock-tab-label" aria-hidden="true">
              {p.title}
            </span>
            {p.key === 'comments' && unread.threads + unread.mentions > 0 && (
              <span
                className="dock-tab-count"
                data-unread={unread.threads}
                title={`${unread.threads} unread thread${unread.threads === 1 ? '' : 's'}, ${unread.mentions} new mention${unread.mentions === 1 ? '' : 's'}`}
              >
                {unread.threads}
              </span>
            )}
          </button>
        ))}
        <button
          type="button"
          className="dock-collapse"
          aria-label={open ? 'Collapse panel' : 'Expand panel'}
          title={open ? 'Collapse panel' : 'Expand panel'}
          aria-expanded={open}
          onClick={() => update({ ...prefs, open: !open })}
        >
          <span aria-hidden="true">{open ? '»' : '«'}</span>
        </button>
      </div>
    </aside>
  );
}
