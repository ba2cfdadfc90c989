import { useState } from 'react';
import type { ProjectSummary } from '../../lib/ports/projects.ts';
import type { Visibility } from '../../lib/ports/room.ts';
import { useProjectsBusy, useProjectsSend } from '../projects/projects-context.ts';

const OPTIONS: { value: Visibility; label: string }[] = [
  { value: 'private', label: 'Private — members only' },
  { value: 'link', label: 'Anyone with the link can view' },
  { value: 'public', label: 'Public — anyone can view' },
];

type Copy = 'idle' | 'copied' | 'failed';

/** An owner's share settings: who may open the project, and its link to copy. */
export function ShareSettings({ project, onClose }: { project: ProjectSummary; onClose: () => void }) {
  const send = useProjectsSend();
  const busy = useProjectsBusy();
  const [copy, setCopy] = useState<Copy>('idle');
  const link = project.shareToken ? `${window.location.origin}/s/${project.shareToken}` : null;
  const shared = project.visibility !== 'private';

  const copyLink = () => {
    if (!link) return;
    navigator.clipboard.writeText(link).then(
      () => setCopy('copied'),
      () => setCopy('failed'),
    );
  };

  return (
    <section className="share-settings" aria-label={`Sharing ${project.name}`}>
      <label htmlFor={`visibility-${project.id}`}>Visibility</label>
      <select
        id={`visibility-${project.id}`}
        value={project.visibility}
        disabled={busy}
        onChange={(event) =>
          send({ type: 'projects.share', id: project.id, visibility: event.target.value as Visibility })
        }
      >
        {OPTIONS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {shared && link ? (
        <div className="share-link">
          <label htmlFor={`share-link-${project.id}`}>Share link</label>
          <div className="share-link-row">
            <input
              id={`share-link-${project.id}`}
              readOnly
              value={link}
              onFocus={(event) => event.currentTarget.select()}
            />
            <button type="button" onClick={copyLink}>
              Copy share link
            </button>
          </div>
          {copy === 'copied' && (
            <p className="message notice" role="status">
              Link copied.
            </p>
          )}
          {copy === 'failed' && (
            <p className="message error" role="alert">
              Couldn't copy automatically: select the link above and copy it.
            </p>
          )}
        </div>
      ) : (
        <p className="fineprint left">Make the project shareable to get a link.</p>
      )}
      <button type="button" className="ghost" onClick={onClose}>
        Done
      </button>
    </section>
  );
}
