import { useState, type ReactNode } from 'react';
import { PanelBoundary } from './PanelBoundary.tsx';
import './dock-sheet.css';

export type DockPanel = 'simulation' | 'tests' | 'timeline';

const LABELS: Record<DockPanel, string> = { simulation: 'Simulation', tests: 'Tests', timeline: 'Timeline' };
const KEY = 'chartroom.dock';

function remembered(): DockPanel | null {
  try {
    const value = globalThis.localStorage?.getItem(KEY);
    return value === 'simulation' || value === 'tests' || value === 'timeline' ? value : null;
  } catch {
    return null;
  }
}

function remember(panel: DockPanel | null): void {
  try {
    if (panel) globalThis.localStorage?.setItem(KEY, panel);
    else globalThis.localStorage?.removeItem(KEY);
  } catch {
    // Storage refused (private mode, quota): the choice lasts until the page closes.
  }
}

/**
 * The panels under the diagram: a row of tabs and at most one open panel, which takes a
 * bounded share of the height and scrolls on its own, so the diagram keeps the room it
 * needs. Which panel is open is this browser's own choice (no one else sees it, and it is
 * remembered across reloads), so it is React state and local storage, not a machine. The
 * closed panels stay mounted: a generated path list or a scrolled timeline is still there
 * when its tab is chosen again. Each panel has a boundary of its own: one that throws
 * says so in its place, and tries again when `resetKey` (the definition) changes. On a
 * phone the dock is a bottom sheet (dock-sheet.css): tabs at the screen's foot, the open
 * panel over the page's lower part, the diagram in view above it.
 */
export function MachineDock({
  panels,
  resetKey,
}: {
  panels: Partial<Record<DockPanel, ReactNode>>;
  resetKey?: unknown;
}) {
  const [open, setOpen] = useState<DockPanel | null>(remembered);
  const shown = (Object.keys(LABELS) as DockPanel[]).filter((key) => Boolean(panels[key]));
  const choose = (key: DockPanel) => {
    const next = open === key ? null : key;
    setOpen(next);
    remember(next);
  };
  return (
    <div className="machine-dock" data-open={open ?? 'none'}>
      <div className="machine-dock-tabs" role="group" aria-label="Panels">
        {shown.map((key) => (
          <button key={key} type="button" aria-pressed={open === key} onClick={() => choose(key)}>
            {LABELS[key]}
          </button>
        ))}
      </div>
      {shown.map((key) => (
        <div key={key} className="machine-dock-panel" data-panel={key}>
          <PanelBoundary name={`The ${LABELS[key]} panel`} resetKey={resetKey}>
            {panels[key]}
          </PanelBoundary>
        </div>
      ))}
    </div>
  );
}
