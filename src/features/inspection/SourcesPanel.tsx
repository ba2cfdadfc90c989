import { useState } from 'react';
import { useInspection, useInspectionBusy, useInspectionSend } from './inspection-context.ts';

/** The stock inspector's one line, pointed at this backend with a source's key. */
export function snippet(ingestUrl: string, key: string): string {
  return `createWebSocketInspector({ url: '${ingestUrl.replace(/^http/, 'ws')}?key=${key}' })`;
}

/** Sources: owners create one (its key and snippet shown once) and revoke them; members see the list. */
export function SourcesPanel({ ingestUrl }: { ingestUrl: string }) {
  const send = useInspectionSend();
  const sources = useInspection((c) => c.sources);
  const isOwner = useInspection((c) => c.isOwner);
  const created = useInspection((c) => c.createdKey);
  const busy = useInspectionBusy();
  const [name, setName] = useState('');
  return (
    <section className="card room-panel inspect-sources" aria-labelledby="inspect-sources-title">
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
