import type { FormEvent } from 'react';
import type { MachineSummary } from '../../lib/ports/document.ts';
import { timeAgo } from '../../lib/relative-time.ts';
import { Avatar } from '../room/Avatar.tsx';
import type { MemberView } from '../room/room-context.ts';
import { ChartThumbnail } from './ChartThumbnail.tsx';
import { UnreadBadge } from '../comments/UnreadBadge.tsx';

export type CardMode = 'menu' | 'confirm' | 'rename';

interface Props {
  machine: MachineSummary;
  href: string;
  /** The other people on this machine now. */
  here: MemberView[];
  /** The name of who last changed it ("you" for this person), when known. */
  changedBy: string | null;
  canEdit: boolean;
  busy: boolean;
  now: number;
  open: CardMode | null;
  setOpen: (mode: CardMode | null) => void;
  onDelete: () => void;
  onRename: (name: string) => void;
}

/**
 * One machine in the room: a picture of its chart, its name (the link to it), who is on
 * it now, when it last changed and this person's unread comments on it; renaming and
 * deleting sit behind the card's "⋯" menu.
 */
/** "edited 5 min ago by Ada": from its log's newest op, else from its row. */
function edited(m: MachineSummary, by: string | null, now: number): string {
  const at = m.lastChange?.at ?? m.updatedAt;
  if (!at) return '';
  return `edited ${timeAgo(at, now)}${by ? ` by ${by}` : ''}`;
}

export function MachineCard({
  machine: m,
  href,
  here,
  changedBy,
  canEdit,
  busy,
  now,
  open,
  setOpen,
  onDelete,
  onRename,
}: Props) {
  const onSubmitRename = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const value = new FormData(event.currentTarget).get('name');
    const name = typeof value === 'string' ? value.trim() : '';
    setOpen(null);
    if (name && name !== m.name) onRename(name);
  };
  return (
    <li className="machine-card">
      <div className="machine-card-picture">
        <ChartThumbnail name={m.name} sketch={m.sketch} />
        <UnreadBadge machineId={m.id} name={m.name} />
      </div>
      <div className="machine-card-head">
        <a href={href} className="machine-card-name">
          {m.name}
        </a>
        {canEdit && (
          <button
            type="button"
            className="icon-button"
            aria-label={`Actions for ${m.name}`}
            aria-haspopup="menu"
            aria-expanded={open === 'menu'}
            disabled={busy}
            onClick={() => setOpen(open === 'menu' ? null : 'menu')}
          >
            ⋯
          </button>
        )}
        {open === 'menu' && (
          <div
            role="menu"
            className="machine-card-menu"
            aria-label={`Actions for ${m.name}`}
            onKeyDown={(e) => e.key === 'Escape' && setOpen(null)}
          >
            <button type="button" role="menuitem" onClick={() => setOpen('rename')}>
              Rename
            </button>
            <button type="button" role="menuitem" className="menu-danger" onClick={() => setOpen('confirm')}>
              Delete
            </button>
          </div>
        )}
      </div>
      <div className="machine-card-meta">
        <span className="room-muted">{edited(m, changedBy, now)}</span>
        <ul className="room-here" aria-label={`On ${m.name} now`}>
          {here.map((p) => (
            <li key={p.userId}>
              <Avatar
                name={p.name}
                color={p.color}
                avatarUrl={p.avatarUrl}
                online
                label={`${p.name} is on ${m.name}`}
                size={22}
              />
            </li>
          ))}
        </ul>
      </div>
      {open === 'confirm' && (
        <div className="room-confirm" role="group" aria-label={`Delete ${m.name}?`}>
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => {
              setOpen(null);
              onDelete();
            }}
          >
            Delete {m.name}
          </button>
          <button type="button" onClick={() => setOpen(null)}>
            Keep
          </button>
        </div>
      )}
      {open === 'rename' && (
        <form className="machine-card-rename" onSubmit={onSubmitRename}>
          <input name="name" aria-label="Machine name" defaultValue={m.name} maxLength={120} autoFocus />
          <button type="submit" className="primary" disabled={busy}>
            Save
          </button>
          <button type="button" onClick={() => setOpen(null)}>
            Cancel
          </button>
        </form>
      )}
    </li>
  );
}
