import { useId, type ReactNode } from 'react';

/**
 * Labelled fields that commit on Enter (single line) or on leaving the field, so each
 * change is one op, not one per keystroke. They are keyed by their value from outside:
 * someone else's edit replaces what is shown unless the field is being typed in.
 */

interface TextFieldProps {
  label: string;
  value: string;
  onCommit: (value: string) => void;
  disabled?: boolean;
  multiline?: boolean;
  placeholder?: string;
  hint?: ReactNode;
}

export function TextField({ label, value, onCommit, disabled, multiline, placeholder, hint }: TextFieldProps) {
  const id = useId();
  const commit = (next: string) => {
    if (next !== value) onCommit(next);
  };
  return (
    <div className="inspector-field">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea
          id={id}
          key={value}
          defaultValue={value}
          disabled={disabled}
          placeholder={placeholder}
          rows={Math.min(8, Math.max(2, value.split('\n').length + 1))}
          onBlur={(e) => commit(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) commit(e.currentTarget.value);
          }}
        />
      ) : (
        <input
          id={id}
          key={value}
          defaultValue={value}
          disabled={disabled}
          placeholder={placeholder}
          onBlur={(e) => commit(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit(e.currentTarget.value);
            if (e.key === 'Escape') e.currentTarget.value = value;
          }}
        />
      )}
      {hint && <small className="inspector-hint">{hint}</small>}
    </div>
  );
}

interface SelectFieldProps<T extends string> {
  label: string;
  value: T;
  options: { value: T; label: string }[];
  onChange: (value: T) => void;
  disabled?: boolean;
  /** Told true when the select is pointed at or focused (about to be opened), false when it loses focus. */
  onEngage?: (engaged: boolean) => void;
}

export function SelectField<T extends string>({
  label,
  value,
  options,
  onChange,
  disabled,
  onEngage,
}: SelectFieldProps<T>) {
  const id = useId();
  const engage = onEngage && (() => onEngage(true));
  return (
    <div className="inspector-field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        disabled={disabled}
        onPointerEnter={engage}
        onPointerDown={engage}
        onFocus={engage}
        onBlur={onEngage && (() => onEngage(false))}
        onChange={(e) => onChange(e.target.value as T)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
