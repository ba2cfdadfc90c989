import { useId, useState, type KeyboardEvent } from 'react';
import { mentionedIn, mentionQuery } from '../../lib/comments/threads.ts';
import { MAX_COMMENT_LENGTH } from '../../lib/ports/comments.ts';

export interface Mentionable {
  userId: string;
  name: string;
}

/**
 * A comment being written: a text box that completes `@` names from the project's
 * members (arrows and Enter, or a click), and says how long the text may be. What it
 * sends carries the ids of the members its text mentions.
 */
export function Composer({
  label,
  submit,
  initial = '',
  members,
  busy,
  onSubmit,
  onCancel,
}: {
  label: string;
  submit: string;
  initial?: string;
  members: readonly Mentionable[];
  busy: boolean;
  onSubmit: (body: string, mentions: string[]) => void;
  onCancel?: () => void;
}) {
  const [text, setText] = useState(initial);
  const [active, setActive] = useState(0);
  const listId = useId();
  const query = mentionQuery(text);
  const options =
    query === null ? [] : members.filter((m) => m.name.toLowerCase().startsWith(query.toLowerCase())).slice(0, 6);
  const tooLong = text.length > MAX_COMMENT_LENGTH;
  const empty = text.trim() === '';

  const pick = (m: Mentionable) => {
    setText(text.replace(/@([^\s@]{0,40})$/, `@${m.name} `));
    setActive(0);
  };
  const send = () => {
    if (empty || tooLong || busy) return;
    onSubmit(text.trim(), mentionedIn(text, members));
    setText('');
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (options.length > 0 && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
    } else if (options.length > 0 && (e.key === 'Enter' || e.key === 'Tab')) {
      e.preventDefault();
      const m = options[Math.min(active, options.length - 1)];
      if (m) pick(m);
    } else if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
      e.preventDefault();
      send();
    } else if (e.key === 'Escape' && onCancel) {
      e.preventDefault();
      onCancel();
    }
  };

  return (
    <form
      className="cm-composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <textarea
        aria-label={label}
        value={text}
        rows={3}
        placeholder="Write a comment… @ to mention"
        role="combobox"
        aria-expanded={options.length > 0}
        aria-controls={listId}
        aria-autocomplete="list"
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      {options.length > 0 && (
        <ul className="cm-mentions" id={listId} role="listbox" aria-label="Members to mention">
          {options.map((m, i) => (
            <li
              key={m.userId}
              role="option"
              aria-selected={i === active}
              onPointerDown={(e) => {
                e.preventDefault();
                pick(m);
              }}
            >
              @{m.name}
            </li>
          ))}
        </ul>
      )}
      <div className="cm-composer-foot">
        <span className={tooLong ? 'cm-count over' : 'cm-count'}>
          {tooLong ? `${text.length - MAX_COMMENT_LENGTH} characters too long` : ''}
        </span>
        {onCancel && (
          <button type="button" className="link" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="primary" disabled={empty || tooLong || busy}>
          {submit}
        </button>
      </div>
    </form>
  );
}
