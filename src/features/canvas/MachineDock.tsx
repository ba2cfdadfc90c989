import { useState, type ReactNode } from 'react';

export type DockPanel = 'simulation' | 'tests' | 'timeline';

const LABELS: Record<DockPanel, string> = { simulation: 'Simulation', tests: 'Tests', timeline: 'Timeline' };

/**
 * The panels under the diagram. A wide screen shows them side by side, each scrolling on
 * its own; a narrow one shows a row of tabs and at most one panel, none until a tab is
 * chosen, so the diagram keeps the height it needs. Which tab is open is this view's own
 * choice (no one else sees it), so it is React state, not part of a machine.
 */
export function MachineDock({ panels }: { panels: Partial<Record<DockPanel, ReactNode>> }) {
  const [open, setOpen] = useState<DockPanel | null>(null);
  const shown = (Object.keys(LABELS) as DockPanel[]).filter((key) => Boolean(panels[key]));
  return (
    <div className="machine-dock" data-open={open ?? 'none'}>
      <div className="machine-dock-tabs" role="group" aria-label="Panels">
        {shown.map((key) => (
          <button
            key={key}
            type="button"
            aria-pressed={open === key}
            onClick={() => setOpen(open === key ? null : key)}
          >
            {LABELS[key]}
          </button>
        ))}
      </div>
      {shown.map((key) => (
        <div key={key} className="machine-dock-panel" data-panel={key}>
          {panels[key]}
        </div>
      ))}
    </div>
  );
}
