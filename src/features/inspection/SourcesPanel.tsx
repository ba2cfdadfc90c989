import { useState } from 'react';
import type { InspectionSource } from '../../lib/ports/inspection.ts';
import { useInspection, useInspectionBusy, useInspectionSend, useInspectionSources } from './inspection-context.ts';

const NO_SOURCES: InspectionSource[] = [];

/** The stock inspector's one line, pointed at this backend with a source's key. */
export function snippet(ingestUrl: string, key: string): string {
  return `createWebSocketInspector({ url: '${ingestUrl.replace(/^http/, 'ws')}?key=${key}' })`;
}

/** Sources: owners create one (its key and snippet shown once) and revoke them; members see the list. */
export function SourcesPanel({ ingestUrl }: { ingestUrl: string }) {
  const send = useInspectionSend();
  const sources = useInspectionSources((c) => c?.sources ?? NO_SOURCES);
  const isOwner = useInspection((c) => c.isOwner);
  const created = useInspectionSources((c) => c?.createdKey ?? null);
  const busy = useInspectionBusy();
  const [name, setName] = useState('');
  return (
    <section className="inspect-section inspect-sources" aria-labelledby="inspect-sources-title">
      <h2 id="inspect-sources-title">Sources</h2>
      {isOwner && (
        <form
          className="inspect-create"
          onSubmit={(e) => {
            e.preventDefault();
            send({ type: 'inspection.createSource', name });
            setName('');
          }}
        >
          <label>
            New source
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="web app" maxLength={80} />
          </label>
          <button type="submit" className="primary" disabled={busy !== null || name.trim() === ''}>
            Create source
          </button>
        </form>
      )}
      {created && (
        <div className="inspect-key" role="status">
          <p>Copy this now: the key is not shown again.</p>
          <code data-testid="inspect-key">{created.key}</code>
          <pre data-testid="inspect-snippet">{snippet(ingestUrl, created.key)}</pre>
          <button type="button" className="link" onClick={() => send({ type: 'inspection.dismissKey' })}>
            Done
          </button>
        </div>
      )}
      <ul className="inspect-list" aria-label="Sources">
        {sources.map((source) => (
          <li key={source.id} data-revoked={source.revokedAt ? 'true' : undefined}>
            <span>{source.name}</span> {source.revokedAt ? <em>revoked</em> : <em>live</em>}
            <Retention source={source} />
            {isOwner && !source.revokedAt && (
              <button
                type="button"
                className="link danger"
                disabled={busy !== null}
                onClick={() => send({ type: 'inspection.revokeSource', sourceId: source.id })}
              >
                Revoke {source.name}
              </button>
            )}
          </li>
        ))}
        {sources.length === 0 && <li className="muted">No sources yet.</li>}
      </ul>
    </section>
  );
}

/**
 * What a source keeps: its last N events, none older than D days. Owners and editors
 * change it (the database allows only them); everyone else reads it.
 */
function Retention({ source }: { source: InspectionSource }) {
  const send = useInspectionSend();
  const canEdit = useInspection((c) => c.canEdit === true);
  const busy = useInspectionBusy();
  const [events, setEvents] = useState(String(source.maxEvents));
  const [days, setDays] = useState(String(source.maxDays));
  const [editing, setEditing] = useState(false);
  const label = `Keeps the last ${source.maxEvents.toLocaleString('en')} events, ${source.maxDays} ${source.maxDays === 1 ? 'day' : 'days'}`;
  if (!canEdit || !editing)
    return (
      <div className="inspect-retention">
        <span data-testid="inspect-retention">{label}</span>
        {canEdit && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setEvents(String(source.maxEvents));
              setDays(String(source.maxDays));
              setEditing(true);
            }}
          >
            Change what {source.name} keeps
          </button>
        )}
      </div>
    );
  const maxEvents = Number(events);
  const maxDays = Number(days);
  const valid =
    Number.isInteger(maxEvents) &&
    maxEvents >= 100 &&
    maxEvents <= 1_000_000 &&
    Number.isInteger(maxDays) &&
    maxDays >= 1 &&
    maxDays <= 90;
  return (
    <form
      className="inspect-retention"
      aria-label={`What ${source.name} keeps`}
      onSubmit={(e) => {
        e.preventDefault();
        send({ type: 'inspection.setRetention', sourceId: source.id, maxEvents, maxDays });
        setEditing(false);
      }}
    >
      <label>
        Events kept
        <input type="number" min={100} max={1_000_000} value={events} onChange={(e) => setEvents(e.target.value)} />
      </label>
      <label>
        Days kept
        <input type="number" min={1} max={90} value={days} onChange={(e) => setDays(e.target.value)} />
      </label>
      <button type="submit" disabled={busy !== null || !valid}>
        Keep
      </button>
      <button type="button" className="link" onClick={() => setEditing(false)}>
        Cancel
      </button>
      {!valid && <span className="muted">100 to 1,000,000 events, 1 to 90 days.</span>}
    </form>
  );
}
