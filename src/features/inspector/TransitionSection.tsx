import { pathOf, sameTrigger, type InspectorEdit, type TriggerKind } from '../../lib/inspector/edits.ts';
import { writeActions, writeGuard } from '../../lib/inspector/text.ts';
import type { MachineDefinition, Transition } from '../../lib/model/types.ts';
import { SelectField, TextField } from './fields.tsx';

interface Props {
  definition: MachineDefinition;
  transition: Transition;
  canEdit: boolean;
  edit: (edit: InspectorEdit) => void;
}

function triggerOf(t: Transition): { kind: TriggerKind | 'other'; value: string } {
  const e = t.event;
  if (typeof e === 'string') return { kind: 'event', value: e };
  if ('always' in e) return { kind: 'always', value: '' };
  if ('after' in e) return { kind: 'after', value: String(e.after) };
  return { kind: 'other', value: 'done' in e ? 'onDone' : `invoke ${e.outcome}` };
}

/** One transition: its trigger, targets, guard, actions, reenter, description, and its place among same-trigger transitions. */
export function TransitionSection({ definition, transition: t, canEdit, edit }: Props) {
  const id = t.id;
  const off = !canEdit;
  const trigger = triggerOf(t);
  const same = sameTrigger(definition, t);
  const at = same.findIndex((x) => x.id === id);
  const source = pathOf(definition, t.source);
  return (
    <section aria-label="Transition">
      <h3>Transition from {source || '(machine)'}</h3>
      {trigger.kind !== 'other' ? (
        <>
          <SelectField<TriggerKind>
            label="Trigger"
            value={trigger.kind}
            options={[
              { value: 'event', label: 'Event' },
              { value: 'after', label: 'After a delay' },
              { value: 'always', label: 'Always (eventless)' },
            ]}
            disabled={off}
            onChange={(kind) =>
              edit({
                kind: 'transition.trigger',
                id,
                trigger: kind,
                value: kind === 'after' ? '1000' : kind === 'event' ? 'EVENT' : '',
              })
            }
          />
          {trigger.kind !== 'always' && (
            <TextField
              label={trigger.kind === 'after' ? 'Delay (ms or name)' : 'Event'}
              value={trigger.value}
              disabled={off}
              onCommit={(value) =>
                edit({ kind: 'transition.trigger', id, trigger: trigger.kind as TriggerKind, value })
              }
            />
          )}
        </>
      ) : (
        <p>Trigger: {trigger.value}</p>
      )}
      <TextField
        label="Targets"
        value={t.targets.map((x) => pathOf(definition, x)).join(', ')}
        disabled={off}
        placeholder="key paths, comma-separated; empty stays"
        onCommit={(targets) => edit({ kind: 'transition.targets', id, targets })}
      />
      <TextField
        label="Guard"
        value={writeGuard(t.guard)}
        disabled={off}
        placeholder="name, name {params}, and(a, not(b))"
        onCommit={(text) => edit({ kind: 'transition.guard', id, text })}
      />
      <TextField
        label="Actions"
        multiline
        value={writeActions(t.actions)}
        disabled={off}
        placeholder="one per line: name {params}"
        onCommit={(text) => edit({ kind: 'transition.actions', id, text })}
      />
      <div className="inspector-field">
        <label>
          <input
            type="checkbox"
            checked={t.reenter}
            disabled={off}
            onChange={(e) => edit({ kind: 'transition.reenter', id, reenter: e.target.checked })}
          />{' '}
          Reenter (exit and enter the source again)
        </label>
      </div>
      <TextField
        label="Description"
        multiline
        value={t.description ?? ''}
        disabled={off}
        onCommit={(text) => edit({ kind: 'transition.description', id, text })}
      />
      {same.length > 1 && (
        <div className="inspector-row" role="group" aria-label="Priority">
          <span>
            Tried {at + 1} of {same.length} for this trigger
          </span>
          <button
            type="button"
            disabled={off || at === 0}
            onClick={() => edit({ kind: 'transition.move', id, by: -1 })}
          >
            Move up
          </button>
          <button
            type="button"
            disabled={off || at === same.length - 1}
            onClick={() => edit({ kind: 'transition.move', id, by: 1 })}
          >
            Move down
          </button>
        </div>
      )}
    </section>
  );
}
