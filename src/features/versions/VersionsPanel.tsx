import { useState, type FormEvent } from 'react';
import { timeAgo } from '../../lib/relative-time.ts';
import { useBringIntoView } from '../canvas/bring-into-view.ts';
import { useCanEditCanvas } from '../canvas/open-machine-context.ts';
import { useMembers } from '../room/room-context.ts';
import { VersionView } from './VersionView.tsx';
import {
  useNaming,
  useReadingVersion,
  useSavingVersion,
  useSelectedChange,
  useVersionLayout,
  useVersions,
  useVersionsError,
  useVersionsFailed,
  useVersionsLoading,
  useVersionsRef,
  useVersionView,
  type VersionsActor,
} from './versions-selectors.ts';
import './versions.css';

/** The Versions side panel, where the open machine has a versions child (the app's machine page). */
export function VersionsSlot() {
  const actor = useVersionsRef();
  return actor ? <VersionsPanel actor={actor} /> : null;
}

/**
 * A machine's named versions, live for everyone: Save version names where the log is now;
 * each version opens read-only, compares with now (or, once one is compared, with another
 * version), or is restored as ordinary undoable edits (owners and editors).
 */
export function VersionsPanel({ actor }: { actor: VersionsActor }) {
  const versions = useVersions(actor);
  const error = useVersionsError(actor);
  const failed = useVersionsFailed(actor);
  const loading = useVersionsLoading(actor);
  const naming = useNaming(actor);
  const saving = useSavingVersion(actor);
  const reading = useReadingVersion(actor);
  const view = useVersionView(actor);
  const layout = useVersionLayout(actor);
  const selected = useSelectedChange(actor);
  const canEdit = useCanEditCanvas();
  const bringIntoView = useBringIntoView();
  const members = useMembers();
  const [name, setName] = useState('');
  const nameOf = (id: string | null) => members.find((m) => m.userId === id)?.name ?? 'Someone';
  const now = Date.now();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'versions.save', name });
  };
  // A change picked is selected on the canvas's picture of the diff, and brought into view there.
  const chooseChange = (id: string | null) => {
    actor.send({ type: 'versions.select', id });
    if (id !== null) bringIntoView(layout, id);
  };
  const startNaming = () => {
    setName('');
    actor.send({ type: 'versions.startNaming' });
  };

  return (
    <section className="vs-panel" role="region" aria-label="Versions">
      <header className="vs-head">
        <h2>Versions</h2>
        <span className="vs-count" role="status">
          {loading ? 'loading…' : `${versions.length} ${versions.length === 1 ? 'version' : 'versions'}`}
          {reading ? ' · reading…' : ''}
        </span>
        {canEdit && !naming && (
          <button type="button" className="primary" onClick={startNaming}>
            Save version
          </button>
        )}
      </header>
      {naming && (
        <form className="vs-name" aria-label="Name this version" onSubmit={submit}>
          <label>
            Name
            <input
              value={name}
              maxLength={200}
              placeholder="v2: retries capped"
              autoFocus
              disabled={saving}
              onChange={(e) => setName(e.currentTarget.value)}
            />
          </label>
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
          <button type="button" disabled={saving} onClick={() => actor.send({ type: 'versions.cancelNaming' })}>
            Cancel
          </button>
        </form>
      )}
      {error && (
        <p className="message error" role="alert">
          {error}{' '}
          {failed ? (
            <button type="button" className="link" onClick={() => actor.send({ type: 'versions.retry' })}>
              Try again
            </button>
          ) : (
            <button type="button" className="link" onClick={() => actor.send({ type: 'versions.dismissError' })}>
              Dismiss
            </button>
          )}
        </p>
      )}
      {view && (
        <>
          {view.kind === 'compare' && view.version && versions.length > 1 && (
            <label className="vs-against">
              <span className="vs-against-name">Compare {view.version.name} with</span>
              <select
                value={view.against?.id ?? ''}
                onChange={(e) =>
                  view.version &&
                  actor.send({ type: 'versions.compare', id: view.version.id, against: e.currentTarget.value || null })
                }
              >
                <option value="">now</option>
                {versions
                  .filter((v) => v.id !== view.version?.id)
                  .map((v) => (
                    <option key={v.id} value={v.id}>
                      {v.name}
                    </option>
                  ))}
              </select>
            </label>
          )}
          <VersionView
            view={view}
            selected={selected}
            canEdit={canEdit}
            onSelect={chooseChange}
            onRestore={() => view.version && actor.send({ type: 'versions.restore', id: view.version.id })}
            onClose={() => actor.send({ type: 'versions.close' })}
          />
        </>
      )}
      {!loading && versions.length === 0 && (
        <p className="vs-empty">No versions yet. {canEdit ? 'Save one to name this point in the history.' : ''}</p>
      )}
      <ol className="vs-list">
        {[...versions].reverse().map((v) => (
          <li key={v.id}>
            <article className="vs-item" aria-label={v.name} data-open={view?.version?.id === v.id || undefined}>
              <div className="vs-item-text">
                <strong className="vs-item-name" title={v.name}>
                  {v.name}
                </strong>
                <span className="vs-item-meta">
                  {nameOf(v.createdBy)} · {timeAgo(v.createdAt, now)} · edit {v.seq}
                </span>
              </div>
              <div className="vs-item-actions">
                <button type="button" onClick={() => actor.send({ type: 'versions.open', id: v.id })}>
                  Open
                </button>
                <button type="button" onClick={() => actor.send({ type: 'versions.compare', id: v.id })}>
                  Compare
                </button>
                {canEdit && (
                  <button type="button" onClick={() => actor.send({ type: 'versions.restore', id: v.id })}>
                    Restore
                  </button>
                )}
              </div>
            </article>
          </li>
        ))}
      </ol>
    </section>
  );
}
