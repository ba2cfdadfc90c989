import { useMemo, useState } from 'react';
import { pathOf } from '../../lib/inspector/edits.ts';
import type { MachineDefinition, StateId } from '../../lib/model/types.ts';
import { SelectField } from './fields.tsx';

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
 * nothing that grows with the chart when an edit re-renders the Inspector; the full list
 * (built once per change to the states) is there before it opens.
 */
export function StateTargetField({ label, definition, value, onChange, disabled }: Props) {
  const [engaged, setEngaged] = useState(false);
  const { states, root } = definition;
  // The paths depend only on the states (keys and parents).
  const all = useMemo(() => (engaged ? Object.keys(states).filter((s) => s !== root) : null), [engaged, states, root]);
  const ids = all ?? (value === '' ? [] : [value]);
  const options = useMemo(
    () => [{ value: '', label: '(none)' }, ...ids.map((s) => ({ value: s, label: pathOf(definition, s) }))],
    [all, value, states],
  );
  return (
    <SelectField
      label={label}
      value={value}
      options={options}
      disabled={disabled}
      onEngage={setEngaged}
      onChange={onChange}
    />
  );
}
