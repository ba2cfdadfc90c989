import type { CanvasReview } from './versions-selectors.ts';
import './versions.css';

/**
 * A strip atop the main canvas while it shows a version or a diff instead of the live chart:
 * what is shown ("Viewing v2 · Read-only", "Comparing v2 → now"), Restore (owners and
 * editors, for a saved version) and Back to now. Only this person sees it.
 */
export function ReviewBanner({ review, canEdit }: { review: CanvasReview; canEdit: boolean }) {
  const { actor, view, layout } = review;
  const version = view.version;
  return (
    <div className="vs-banner" role="status" aria-label="Review on the canvas" data-kind={view.kind}>
      <p className="vs-banner-text">
        <strong title={view.label}>{view.kind === 'open' ? `Viewing ${view.label}` : `Comparing ${view.label}`}</strong>
        <span className="vs-banner-note"> · Read-only{layout ? '' : ' · laying out…'}</span>
      </p>
      <div className="vs-banner-actions">
        {canEdit && version && (
          <button type="button" onClick={() => actor.send({ type: 'versions.restore', id: version.id })}>
            Restore {version.name}
          </button>
        )}
        <button type="button" className="primary" onClick={() => actor.send({ type: 'versions.close' })}>
          Back to now
        </button>
      </div>
    </div>
  );
}
