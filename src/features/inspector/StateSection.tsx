import { pathOf } from '../../lib/inspector/edits.ts';
import type { InspectorEdit } from '../../lib/inspector/edits.ts';
import { writeActions } from '../../lib/inspector/text.ts';
import { transitionsFrom } from '../../lib/model/tree.ts';
import type { MachineDefinition, StateNode, StateType } from '../../lib/model/types.ts';
import { SelectField, TextField } from './fields.tsx';
import { StateTargetField } from './StateTargetField.tsx';

type Kind = StateType | 'history-shallow' | 'history-deep';

const KINDS: { value: Kind; label: string }[] = [
  { value: 'atomic', label: 'Atomic' },
  { value: 'compound', label: 'Compound' },
  { value: 'parallel', label: 'Parallel' },
  { value: 'history-shallow', label: 'History (shallow)' },
  { value: 'history-deep', label: 'History (deep)' },
  { value: 'final', label: 'Final' },
];

interface Props {
  definition: MachineDefinition;
  state: StateNode;
  canEdit: boolean;
  edit: (edit: InspectorEdit) => void;
}

/** Every part of one state: key, type, initial child, actions, tags, description, meta, invoke, after and always. */
export function StateSection({ definition, state, canEdit, edit }: Props) {
  const id = state.id;
  const off = !canEdit;
  const kind: Kind =
    state.type === 'history' ? (state.history === 'deep' ? 'history-deep' : 'history-shallow') : state.type;
  const siblings = state.parent === null ? [] : (definition.states[state.parent]?.children ?? []);
  const childOptions = [
    { value: '', label: '(none)' },
    ...state.children.map((c) => ({ value: c, label: definition.states[c]?.key ?? c })),
  ];
  const timed = transitionsFrom(definition, id).filter(
    (t) => typeof t.event === 'object' && ('after' in t.event || 'always' in t.event),
  );
  return (
    <section aria-label={`State ${state.key}`}>
      <h3>State {state.key}</h3>
      {state.parent !== null && (
        <TextField
          label="Key"
          value={state.key}
          disabled={off}
          onCommit={(key) => edit({ kind: 'state.rename', id, key })}
        />
      )}
      <SelectField<Kind>
        label="Type"
        value={kind}
        options={KINDS}
        disabled={off}
        onChange={(v) => {
          if (v === 'history-shallow' || v === 'history-deep') {
            if (state.type !== 'history') edit({ kind: 'state.type', id, type: 'history' });
            edit({ kind: 'state.history', id, history: v === 'history-deep' ? 'deep' : 'shallow' });
          } else edit({ kind: 'state.type', id, type: v });
        }}
      />
      {state.type === 'history' && (
        <SelectField
          label="Default target"
          value={state.historyTarget ?? ''}
          options={[
            { value: '', label: '(none)' },
            ...siblings.filter((s) => s !== id).map((s) => ({ value: s, label: definition.states[s]?.key ?? s })),
          ]}
          disabled={off}
          onChange={(v) => edit({ kind: 'state.historyTarget', id, target: v === '' ? null : v })}
        />
      )}
      {state.children.length > 0 && state.type !== 'parallel' && (
        <SelectField
          label="Initial state"
          value={state.initial ?? ''}
          options={childOptions}
          disabled={off}
          onChange={(v) => edit({ kind: 'state.initial', id, initial: v === '' ? null : v })}
        />
      )}
      <TextField
        label="Entry actions"
        multiline
        value={writeActions(state.entry)}
        disabled={off}
        placeholder="one per line: name {params}"
        onCommit={(text) => edit({ kind: 'state.text', id, field: 'entry', text })}
      />
      <TextField
        label="Exit actions"
        multiline
        value={writeActions(state.exit)}
        disabled={off}
        onCommit={(text) => edit({ kind: 'state.text', id, field: 'exit', text })}
      />
      <TextField
        label="Tags"
        value={state.tags.join(', ')}
        disabled={off}
        placeholder="comma-separated"
        onCommit={(text) => edit({ kind: 'state.text', id, field: 'tags', text })}
      />
      <TextField
        label="Description"
        multiline
        value={state.description ?? ''}
        disabled={off}
        placeholder="Markdown"
        onCommit={(text) => edit({ kind: 'state.text', id, field: 'description', text })}
      />
      <TextField
        label="Meta (JSON)"
        multiline
        value={state.meta === null ? '' : JSON.stringify(state.meta, null, 2)}
        disabled={off}
        onCommit={(text) => edit({ kind: 'state.text', id, field: 'meta', text })}
      />

      <h4>Invoke</h4>
      {state.invoke.map((inv, index) => {
        const outcome = (o: 'done' | 'error') =>
          Object.values(definition.transitions).find(
            (t) =>
              t.source === id &&
              typeof t.event === 'object' &&
              'invoke' in t.event &&
              t.event.invoke === inv.uid &&
              t.event.outcome === o,
          )?.targets[0] ?? '';
        const set = (patch: Partial<{ src: string; invokeId: string; input: string }>) =>
          edit({
            kind: 'invoke.set',
            id,
            index,
            src: patch.src ?? inv.src,
            invokeId: patch.invokeId ?? inv.id ?? '',
            input: patch.input ?? (inv.input === undefined ? '' : JSON.stringify(inv.input)),
          });
        return (
          <fieldset key={inv.uid} className="inspector-group">
            <legend>Invocation {index + 1}</legend>
            <TextField label="Actor (src)" value={inv.src} disabled={off} onCommit={(src) => set({ src })} />
            <TextField
              label="Invoke id"
              value={inv.id ?? ''}
              disabled={off}
              onCommit={(invokeId) => set({ invokeId })}
            />
            <TextField
              label="Input (JSON)"
              value={inv.input === undefined ? '' : JSON.stringify(inv.input)}
              disabled={off}
              onCommit={(input) => set({ input })}
            />
            <StateTargetField
              label="On done, go to"
              definition={definition}
              value={outcome('done')}
              disabled={off}
              onChange={(v) =>
                edit({ kind: 'invoke.outcome', id, index, outcome: 'done', target: v === '' ? null : v })
              }
            />
            <StateTargetField
              label="On error, go to"
              definition={definition}
              value={outcome('error')}
              disabled={off}
              onChange={(v) =>
                edit({ kind: 'invoke.outcome', id, index, outcome: 'error', target: v === '' ? null : v })
              }
            />
            {canEdit && (
              <button type="button" onClick={() => edit({ kind: 'invoke.remove', id, index })}>
                Remove invocation
              </button>
            )}
          </fieldset>
        );
      })}
      {canEdit && (
        <TextField
          label="Invoke an actor (src)"
          value=""
          placeholder="actor name, Enter to add"
          onCommit={(src) => src.trim() && edit({ kind: 'invoke.set', id, index: null, src, invokeId: '', input: '' })}
        />
      )}

      <h4>Delayed and eventless transitions</h4>
      <ul className="inspector-list">
        {timed.map((t) => (
          <li key={t.id}>
            {typeof t.event === 'object' && 'after' in t.event ? `after ${String(t.event.after)}` : 'always'} →{' '}
            {t.targets.map((x) => pathOf(definition, x)).join(', ') || '(stays)'}
          </li>
        ))}
      </ul>
      {canEdit && (
        <>
          <TextField
            label="Add delayed transition (ms or delay name)"
            value=""
            placeholder="e.g. 1000"
            onCommit={(value) =>
              value.trim() && edit({ kind: 'transition.add', source: id, trigger: 'after', value, target: id })
            }
          />
          <button
            type="button"
            onClick={() => edit({ kind: 'transition.add', source: id, trigger: 'always', value: '', target: null })}
          >
            Add eventless transition
          </button>
        </>
      )}
    </section>
  );
}
