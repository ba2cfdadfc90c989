import { useState, type FormEvent, type ReactNode } from 'react';
import { useMachineListSend, useMachineListStatus } from '../machines/machine-list-context.ts';
import { DiscardedEdit } from '../room/DiscardedEdit.tsx';
import { useAdminBusy, useMyRole, useProjectId, useProjectName, useRoomSend } from '../room/room-context.ts';
import { SessionBar } from '../session/SessionBar.tsx';
import { usePopover } from './use-popover.ts';
import { ProposeButton } from '../proposals/index.ts';

type Renaming = 'machine' | 'project' | null;

const ROLE_TEXT = {
  owner: 'You are an owner of this project.',
  editor: 'You are an editor of this project.',
  viewer: 'You can view this project (read-only).',
} as const;

/** The way home from a page with a slim bar of its own: the mark, linking to all projects. */
export function HomeLink() {
  return (
    <a className="machine-home" href="/" aria-label="All projects" title="All projects">
      <svg width="20" height="20" viewBox="0 0 22 22" aria-hidden="true">
        <rect x="1.5" y="3" width="8" height="7" rx="2.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
        <rect x="12.5" y="12" width="8" height="7" rx="2.5" fill="currentColor" />
        <path d="M9.5 6.5h3.5a3 3 0 0 1 3 3V12" fill="none" stroke="currentColor" strokeWidth="1.6" />
      </svg>
    </a>
  );
}

/**
 * The machine page's one slim bar: the way home, the breadcrumb (project › machine, the
 * project leading back to the room, renaming in its menu), sync status, the canvas's tools
 * (rendered into `toolsRef` by CanvasPage), the people here, Share and the account.
 */
export function MachineBar({
  machineId,
  name,
  canEdit,
  status,
  people,
  toolsRef,
}: {
  machineId: string;
  name: string | null;
  canEdit: boolean;
  status: ReactNode;
  people: ReactNode;
  toolsRef: (el: HTMLElement | null) => void;
}) {
  const projectId = useProjectId();
  const projectName = useProjectName();
  const roomSend = useRoomSend();
  const { busy: adminBusy } = useAdminBusy();
  const list = { send: useMachineListSend() };
  const { busy, error } = useMachineListStatus();
  const [renaming, setRenaming] = useState<Renaming>(null);
  const { open: menu, setOpen: setMenu, ref: menuRef } = usePopover();

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = new FormData(event.currentTarget).get('name');
    if (typeof value === 'string' && value.trim() !== '') {
      if (renaming === 'machine' && value.trim() !== name) list.send({ type: 'list.rename', machineId, name: value });
      if (renaming === 'project' && value.trim() !== projectName) roomSend({ type: 'room.rename', name: value });
    }
    setRenaming(null);
  };
  const start = (what: Renaming) => {
    setMenu(false);
    setRenaming(what);
  };

  return (
    <header className="machine-bar">
      <HomeLink />
      {renaming && canEdit ? (
        <form className="machine-rename" onSubmit={onSubmit}>
          <label htmlFor="machine-name-input" className="visually-hidden">
            {renaming === 'machine' ? 'Machine name' : 'Project name'}
          </label>
          <input
            id="machine-name-input"
            name="name"
            defaultValue={(renaming === 'machine' ? name : projectName) ?? ''}
            maxLength={120}
            required
            autoFocus
            onKeyDown={(e) => e.key === 'Escape' && setRenaming(null)}
          />
          <button type="submit" className="primary">
            Save name
          </button>
          <button type="button" onClick={() => setRenaming(null)}>
            Cancel
          </button>
        </form>
      ) : (
        <nav className="machine-crumbs" aria-label="Breadcrumb">
          <a
            className="machine-crumb-project"
            href={`/p/${projectId}`}
            title={`Back to ${projectName ?? 'the project'}`}
          >
            {projectName ?? 'Project'}
          </a>
          <span className="machine-crumb-sep" aria-hidden="true">
            ›
          </span>
          <h1 id="machine-title" title={name ?? undefined}>
            {name ?? 'Machine'}
          </h1>
          {canEdit && (
            <div className="machine-menu" ref={menuRef}>
              <button
                type="button"
                className="machine-menu-toggle"
                aria-label="Machine menu"
                title="Rename"
                aria-expanded={menu}
                aria-controls="machine-menu-list"
                onClick={() => setMenu((m) => !m)}
              >
                <span aria-hidden="true">▾</span>
              </button>
              {menu && (
                <div id="machine-menu-list" className="bar-popover machine-menu-list">
                  <button type="button" disabled={busy} onClick={() => start('machine')}>
                    Rename machine
                  </button>
                  <button type="button" disabled={adminBusy} onClick={() => start('project')}>
                    Rename project
                  </button>
                </div>
              )}
            </div>
          )}
        </nav>
      )}
      {renaming && !canEdit && <DiscardedEdit what={`${renaming} name`} onDismiss={() => setRenaming(null)} />}
      {status}
      {error && (
        <span className="message error bar-error" role="alert">
          {error}{' '}
          <button type="button" className="link" onClick={() => list.send({ type: 'list.dismissError' })}>
            Dismiss
          </button>
        </span>
      )}
      <div className="machine-tools" ref={toolsRef} />
      {people}
      {canEdit && <ProposeButton projectId={projectId} />}
      <ShareMenu projectId={projectId} machineId={machineId} />
      <SessionBar />
    </header>
  );
}

/** Share: this person's role, the machine's link to copy, and the way to members and invites. */
function ShareMenu({ projectId, machineId }: { projectId: string; machineId: string }) {
  const role = useMyRole();
  const { open, setOpen, ref } = usePopover();
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const link = `${window.location.origin}/p/${projectId}/m/${machineId}`;
  const copy = () => {
    void navigator.clipboard.writeText(link).then(
      () => setCopied('copied'),
      () => setCopied('failed'),
    );
  };
  return (
    <div className="machine-share" ref={ref}>
      <button
        type="button"
        className="primary machine-share-toggle"
        aria-expanded={open}
        aria-controls="machine-share-panel"
        onClick={() => {
          setCopied('idle');
          setOpen((o) => !o);
        }}
      >
        Share
      </button>
      {open && (
        <section id="machine-share-panel" className="bar-popover machine-share-panel" aria-label="Share">
          <p className="machine-share-role">{role ? ROLE_TEXT[role] : 'You are watching this project as a guest.'}</p>
          <label htmlFor="machine-share-link">Link to this machine (members)</label>
          <div className="machine-share-row">
            <input id="machine-share-link" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" onClick={copy}>
              {copied === 'copied' ? 'Copied' : 'Copy link'}
            </button>
          </div>
          {copied === 'failed' && <p className="message error">Couldn't copy: select the link and copy it.</p>}
          <a href={`/p/${projectId}`}>Members, invites and visibility</a>
        </section>
      )}
    </div>
  );
}
