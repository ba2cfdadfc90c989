import { useState } from 'react';
import { NewProjectDialog } from './NewProjectDialog.tsx';
import { ProjectRow } from './ProjectRow.tsx';
import {
  useLoadError,
  useProjectList,
  useProjectsProblem,
  useProjectsSend,
  useProjectsStatus,
} from './projects-context.ts';
import './projects.css';

/** The signed-in person's projects, live. Guests see the ones they opened by link. */
export function ProjectsPage({ canCreate }: { canCreate: boolean }) {
  const status = useProjectsStatus();
  const projects = useProjectList();
  const loadError = useLoadError();
  const problem = useProjectsProblem();
  const send = useProjectsSend();
  const [creating, setCreating] = useState(false);

  return (
    <main className="projects-page" aria-labelledby="projects-title">
      <div className="projects-head">
        <h1 id="projects-title">Your projects</h1>
        {canCreate && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New project
          </button>
        )}
      </div>
      {problem && (
        <div className="message error with-action" role="alert">
          <span>{problem}</span>
          <button type="button" className="ghost" onClick={() => send({ type: 'projects.dismissError' })}>
            Dismiss
          </button>
        </div>
      )}
      {status === 'loading' && projects.length === 0 && (
        <p className="center-line" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" /> Loading your projects…
        </p>
      )}
      {status === 'failed' && (
        <div className="message error with-action" role="alert">
          <span>{loadError ?? "Couldn't load your projects."}</span>
          <button type="button" onClick={() => send({ type: 'projects.retry' })}>
            Try again
          </button>
        </div>
      )}
      {status === 'ready' && projects.length === 0 && (
        <p className="empty">
          {canCreate
            ? 'No projects yet. Create one, or open an invite link from a teammate.'
            : 'As a guest you see the projects you opened by link. Create an account to start your own.'}
        </p>
      )}
      {projects.length > 0 && (
        <ul className="project-list" aria-label="Projects">
          {projects.map((project) => (
            <ProjectRow key={project.id} project={project} />
          ))}
        </ul>
      )}
      {canCreate && <NewProjectDialog open={creating} onClose={() => setCreating(false)} />}
    </main>
  );
}
