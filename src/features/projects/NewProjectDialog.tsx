import { useEffect, useRef, type FormEvent } from 'react';
import type { Visibility } from '../../lib/ports/room.ts';
import { useProjectsSend } from './projects-context.ts';

const VISIBILITIES: { value: Visibility; label: string; hint: string }[] = [
  { value: 'private', label: 'Private', hint: 'Only members you invite' },
  { value: 'link', label: 'Anyone with the link', hint: 'Opening the link joins as a viewer' },
  { value: 'public', label: 'Public', hint: 'Anyone can view it' },
];

export { VISIBILITIES };

/** The "New project" form in a modal dialog; closing it is the only local state. */
export function NewProjectDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const send = useProjectsSend();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => {
      const value = data.get(name);
      return typeof value === 'string' ? value : '';
    };
    const visibility = text('visibility') as Visibility;
    send({ type: 'projects.create', project: { name: text('name'), description: text('description'), visibility } });
    event.currentTarget.reset();
    onClose();
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby="new-project-title" onClose={onClose}>
      <form onSubmit={onSubmit}>
        <h2 id="new-project-title">New project</h2>
        <fieldset>
          <label htmlFor="new-project-name">Name</label>
          <input id="new-project-name" name="name" required maxLength={120} autoFocus />
          <label htmlFor="new-project-description">Description</label>
          <textarea id="new-project-description" name="description" rows={3} maxLength={2000} />
          <label htmlFor="new-project-visibility">Visibility</label>
          <select id="new-project-visibility" name="visibility" defaultValue="private">
            {VISIBILITIES.map((v) => (
              <option key={v.value} value={v.value}>
                {v.label} — {v.hint}
              </option>
            ))}
          </select>
        </fieldset>
        <div className="dialog-actions">
          <button type="button" className="ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary">
            Create project
          </button>
        </div>
      </form>
    </dialog>
  );
}
