import type { VersionView as View } from '../../../machines/open-machine/versions.machine.ts';

interface Props {
  view: View;
  selected: string | null;
  canEdit: boolean;
  onSelect: (id: string | null) => void;
  onRestore: () => void;
  onClose: () => void;
}

const KIND_MARK = { added: '+', removed: '−', changed: '~' } as const;

/**
 * The Versions panel's words for what the main canvas shows: a version opened read-only,
 * or a diff with its list of Changes; choosing a change selects its element on the canvas
 * and brings it into view (the drawing itself is the canvas's: ReviewBanner, CanvasPage).
 */
export function VersionView({ view, selected, canEdit, onSelect, onRestore, onClose }: Props) {
  const title = view.label;
  const changes = view.diff?.changes ?? [];
  return (
    <section className="vs-view" role="region" aria-label={view.kind === 'open' ? `Version ${title}` : `Diff ${title}`}>
      <header className="vs-view-head">
        <h3 title={title}>{title}</h3>
        <span className="badge">On the canvas · Read-only</span>
        {canEdit && view.version && (
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
