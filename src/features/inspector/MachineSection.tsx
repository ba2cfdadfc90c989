import { catalogue } from '../../lib/convert/catalogue.ts';
import type { InspectorEdit } from '../../lib/inspector/edits.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';
import { TextField } from './fields.tsx';

/** The machine: its id, its context as JSON (validated on commit), and what its implementation must provide. */
export function MachineSection({
  definition,
  canEdit,
  edit,
}: {
  definition: MachineDefinition;
  canEdit: boolean;
  edit: (e: InspectorEdit) => void;
}) {
  const names = catalogue(definition);
  return (
    <section aria-label="Machine">
      <h3>Machine</h3>
      <TextField
        label="Machine id"
        value={definition.machineId ?? ''}
        disabled={!canEdit}
        onCommit={(text) => edit({ kind: 'machine.id', text })}
      />
      <TextField
        label="Context (JSON)"
        multiline
        value={definition.context === null ? '' : JSON.stringify(definition.context, null, 2)}
        disabled={!canEdit}
        onCommit={(text) => edit({ kind: 'machine.context', text })}
      />
      <h4>Implementations to provide</h4>
      <dl className="inspector-catalogue" aria-label="Implementations">
        {(['actions', 'guards', 'actors', 'delays'] as const).map((k) => (
          <div key={k}>
            <dt>{k[0]?.toUpperCase() + k.slice(1)}</dt>
            <dd>{names[k].length > 0 ? names[k].join(', ') : '—'}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
