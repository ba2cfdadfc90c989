import { useId, useMemo, useState } from 'react';
import { pathOf } from '../../lib/inspector/edits.ts';
import type { MachineDefinition, StateId } from '../../lib/model/types.ts';

interface Props {
  label: string;
  definition: MachineDefinition;
  /** The state chosen ('' for none). */
  value: StateId;
  onChange: (value: StateId) => void;
  disabled?: boolean;
}

/**
 * A labelled select of every state (by key path) plus "(none)". Until it is pointed at or
 * focused it holds only "(none)" and the chosen state, so it looks the same but costs
 * nothing that grows with the chart when a peer's edit re-renders the Inspector; the full
 * list (built once per change to the states) is there before it opens.
 */
export function StateTargetField({ label, definition, value, onChange, disabled }: Props) {
  const id = useId();
  const [engaged, setEngaged] = useState(false);
  const { states, root } = definition;
  const all = useMemo(
    () =>
      engaged
        ? Object.keys(states)
            .filter((s) => s !== root)
            .map((s) => ({ value: s, label: pathOf(definition, s) }))
        : null,
    // The paths depend only on the states (keys and parents).
    [engaged, states, root],
  );
  const options = all ?? (value === '' ? [] : [{ value, label: pathOf(definition, value) }]);
  const engage = () => setEngaged(true);
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
        onBlur={() => setEngaged(false)}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">(none)</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
