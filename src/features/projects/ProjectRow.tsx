import { useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ProjectSummary } from '../../lib/ports/projects.ts';
import type { Visibility } from '../../lib/ports/room.ts';
import { ShareSettings } from '../share/ShareSettings.tsx';
import { useProjectsBusy, useProjectsSend } from './projects-context.ts';

const VISIBILITY_LABEL: Record<Visibility, string> = { private: 'Private', link: 'Link', public: 'Public' };
const ROLE_LABEL = { owner: 'Owner', editor: 'Editor', viewer: 'Viewer' } as const;

type Mode = 'view' | 'renaming' | 'sharing' | 'confirmingDelete';

/** One project in the list: open it; rename (editors), share and delete (owners). */
export function ProjectRow({ project }: { project: ProjectSummary }) {
  const send = useProjectsSend();
  const busy = useProjectsBusy();
  const [mode, setMode] = useState<Mode>('view');
  const pending = project.id.startsWith('pending:');
  const canRename = !pending && project.role !== 'viewer';
  const isOwner = !pending && project.role === 'owner';

  const rename = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = new FormData(event.currentTarget).get('name');
    const name = typeof value === 'string' ? value.trim() : '';
    if (name && name !== project.name) send({ type: 'projects.rename', id: project.id, name });
    setMode('view');
  };
  const cancelOnEscape = (event: KeyboardEvent) => {
    if (event.key === 'Escape') setMode('view');
  };

  return (
    <li className="project-row" aria-busy={pending} data-testid="project-row">
      <div className="project-main">
        {mode === 'renaming' ? (
          <form className="rename" onSubmit={rename}>
            <label htmlFor={`rename-${project.id}`} className="visually-hidden">
              Project name
            </label>
            <input
              id={`rename-${project.id}`}
              name="name"
              defaultValue={project.name}
              maxLength={120}
              required
              autoFocus
              onKeyDown={cancelOnEscape}
            />
            <button type="submit" className="primary">
              Save name
            </button>
            <button type="button" className="ghost" onClick={() => setMode('view')}>
              Cancel
            </button>
          </form>
        ) : (
          <h2 className="project-name">
            {pending ? <span>{project.name}</span> : <a href={`/p/${project.id}`}>{project.name}</a>}
          </h2>
        )}
        {project.description && <p className="project-description">{project.description}</p>}
        <div className="badges">
          <span className={`badge role-${project.role}`}>{ROLE_LABEL[project.role]}</span>
          <span className={`badge visibility-${project.visibility}`}>{VISIBILITY_LABEL[project.visibility]}</span>
          <span className="badge members">
            {project.memberCount === 1 ? '1 member' : `${project.memberCount} members`}
          </span>
          {pending && <span className="badge">Creating…</span>}
        </div>
      </div>
      <div className="project-actions">
        {canRename && mode !== 'renaming' && (
          <button
            type="button"
            className="ghost"
            disabled={busy}
            aria-label={`Rename ${project.name}`}
            onClick={() => setMode('renaming')}
          >
            Rename
          </button>
        )}
        {isOwner && (
          <button
            type="button"
            className="ghost"
            aria-expanded={mode === 'sharing'}
            aria-label={`Share settings for ${project.name}`}
            onClick={() => setMode(mode === 'sharing' ? 'view' : 'sharing')}
          >
            Share
          </button>
        )}
        {isOwner && (
          <button
            type="button"
            className="ghost danger"
            disabled={busy}
            aria-label={`Delete ${project.name}`}
            onClick={() => setMode('confirmingDelete')}
          >
            Delete
          </button>
        )}
      </div>
      {mode === 'sharing' && isOwner && <ShareSettings project={project} onClose={() => setMode('view')} />}
      {mode === 'confirmingDelete' && (
        <div
          className="confirm"
          role="alertdialog"
          aria-labelledby={`delete-title-${project.id}`}
          aria-describedby={`delete-desc-${project.id}`}
        >
          <p id={`delete-title-${project.id}`} className="confirm-title">
            Delete “{project.name}”?
          </p>
          <p id={`delete-desc-${project.id}`}>Its members lose access and its charts are gone for good.</p>
          <div className="confirm-actions">
            <button type="button" className="ghost" onClick={() => setMode('view')} autoFocus>
              Keep it
            </button>
            <button
              type="button"
              className="danger-fill"
              onClick={() => {
                send({ type: 'projects.delete', id: project.id });
                setMode('view');
              }}
            >
              Delete project
            </button>
          </div>
        </div>
      )}
    </li>
  );
}
