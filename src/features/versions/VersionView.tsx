import { useMemo } from 'react';
import type { VersionView as View } from '../../../machines/open-machine/versions.machine.ts';
import type { Layout } from '../../lib/layout/types.ts';
import { DiagramShapes, type DiagramMarks } from '../canvas/shapes.tsx';

interface Props {
  view: View;
  layout: Layout | null;
  selected: string | null;
  canEdit: boolean;
  onSelect: (id: string | null) => void;
  onRestore: () => void;
  onClose: () => void;
}

const NONE: Record<string, number> = {};
const NO_PEERS: never[] = [];
const KIND_MARK = { added: '+', removed: '−', changed: '~' } as const;

/**
 * A version read-only, or a diff: the union of both sides drawn with each element added,
 * removed or changed marked (`data-diff`, through the diagram's marks), and the list of
 * Changes in words beside it; choosing a change selects its element on the drawing.
 */
export function VersionView({ view, layout, selected, canEdit, onSelect, onRestore, onClose }: Props) {
  const marks: DiagramMarks = useMemo(
    () => ({ covered: null, played: new Set(), diff: view.diff?.marks }),
    [view.diff],
  );
  const selection = useMemo(() => (selected ? [selected] : []), [selected]);
  const title =
    view.kind === 'open' ? view.version.name : `${view.version.name} → ${view.against ? view.against.name : 'now'}`;
  const changes = view.diff?.changes ?? [];
  return (
    <section className="vs-view" role="region" aria-label={view.kind === 'open' ? `Version ${title}` : `Diff ${title}`}>
      <header className="vs-view-head">
        <h3 title={title}>{title}</h3>
        <span className="badge">Read-only</span>
        {canEdit && (
          <button type="button" onClick={onRestore}>
            Restore {view.version.name}
          </button>
        )}
        <button type="button" onClick={onClose}>
          Back to now
        </button>
      </header>
      {view.diff && (
        <p className="vs-legend" aria-hidden="true">
          <span data-diff="added">added</span> <span data-diff="removed">removed</span>{' '}
          <span data-diff="changed">changed</span>
        </p>
      )}
      <div className="vs-stage">
        {layout ? (
          <svg
            className="diagram-svg vs-svg"
            viewBox={`-8 -8 ${layout.width + 16} ${layout.height + 16}`}
            role="img"
            aria-label={view.kind === 'open' ? `The diagram at ${title}` : `What changed, ${title}`}
          >
            <DiagramShapes
              definition={view.definition}
              layout={layout}
              selection={selection}
              peers={NO_PEERS}
              canEdit={false}
              hidden={NONE}
              marks={marks}
            />
          </svg>
        ) : (
          <p role="status">Laying out {title}…</p>
        )}
      </div>
      {view.diff && (
        <ul className="vs-changes" aria-label="Changes">
          {changes.length === 0 && <li className="vs-none">No changes.</li>}
          {changes.map((c, i) => (
            <li key={`${c.id ?? 'machine'}-${i}`} data-diff={c.kind}>
              <button
                type="button"
                className="vs-change"
                aria-pressed={c.id !== null && c.id === selected}
                disabled={c.id === null}
                onClick={() => onSelect(c.id)}
              >
                <span className="vs-kind" aria-hidden="true">
                  {KIND_MARK[c.kind]}
                </span>
                <Words text={c.text} />
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A change's sentence with its `names` set in code type. */
function Words({ text }: { text: string }) {
  const parts = text.split('`');
  return (
    <span className="vs-words">
      {parts.map((p, i) => (i % 2 === 1 ? <code key={i}>{p}</code> : <span key={i}>{p}</span>))}
    </span>
  );
}
