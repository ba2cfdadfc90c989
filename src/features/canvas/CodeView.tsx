import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { forceLinting, linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { bracketMatching, defaultHighlightStyle, foldGutter, syntaxHighlighting } from '@codemirror/language';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef, useState } from 'react';
import { checkXStateText, type CheckResult } from '../../lib/model/check.ts';
import { exportXState } from '../../lib/model/export.ts';
import type { Issue, MachineDefinition } from '../../lib/model/types.ts';

export const configText = (def: MachineDefinition): string => JSON.stringify(exportXState(def), null, 2);

function diagnostics(result: CheckResult, length: number): Diagnostic[] {
  return result.issues.map((i: Issue) => {
    const from = Math.min(i.at?.offset ?? 0, length);
    return { from, to: Math.max(from, Math.min(i.at?.end ?? from, length)), severity: i.severity, message: i.path ? `${i.path}: ${i.message}` : i.message };
  });
}

/**
 * The XState v5 JSON config in CodeMirror 6. The model's checks (syntax, duplicate keys,
 * import, validation) are inline diagnostics. "Apply" hands a config without errors to
 * `onApply` (which diffs it into ops); with errors nothing changes. While the text is
 * untouched it follows the definition, so remote edits show up here too.
 */
export function CodeView({ definition, canEdit, onApply }: { definition: MachineDefinition; canEdit: boolean; onApply: (next: MachineDefinition) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The text last shown; computed once here (a useRef argument would be evaluated every render).
  const [initialText] = useState(() => configText(definition));
  const shown = useRef(initialText);
  const [dirty, setDirty] = useState(false);
  const [errors, setErrors] = useState<Issue[]>([]);
  const apply = useRef<() => void>(() => undefined);

  apply.current = () => {
    const v = view.current;
    if (!v) return;
    const result = checkXStateText(v.state.doc.toString());
    const errs = result.issues.filter((i) => i.severity === 'error');
    setErrors(errs);
    forceLinting(v);
    if (errs.length > 0 || !result.definition) return;
    onApply(result.definition);
    setDirty(false);
  };

  useEffect(() => {
    if (!host.current) return;
    const v = new EditorView({
      parent: host.current,
      doc: shown.current,
      extensions: [
        // The basics by hand (the `basicSetup` bundle brings more than a config editor needs).
        lineNumbers(),
        history(),
        foldGutter(),
        drawSelection(),
        highlightActiveLine(),
        bracketMatching(),
        syntaxHighlighting(defaultHighlightStyle),
        json(),
        lintGutter(),
        linter((ev) => diagnostics(checkXStateText(ev.state.doc.toString()), ev.state.doc.length), { delay: 300 }),
        keymap.of([{ key: 'Mod-Enter', run: () => (apply.current(), true) }, ...defaultKeymap, ...historyKeymap]),
        EditorView.editable.of(canEdit),
        EditorView.contentAttributes.of({ 'aria-label': 'Machine config (XState v5 JSON)' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) setDirty(u.state.doc.toString() !== shown.current);
        }),
      ],
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
  }, [canEdit]);

  // Follow the definition while the person has no unapplied edits.
  useEffect(() => {
    const v = view.current;
    const text = configText(definition);
    if (!v || dirty || text === shown.current) return;
    shown.current = text;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
  }, [definition, dirty]);

  const revert = () => {
    const v = view.current;
    if (!v) return;
    shown.current = configText(definition);
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: shown.current } });
    setDirty(false);
    setErrors([]);
  };

  return (
    <section className="code-view" aria-label="Code">
      <div className="code-bar">
        <span className="muted">{dirty ? 'Edited — apply to share' : 'XState v5 config'}</span>
        {canEdit && (
          <>
            <button type="button" onClick={revert} disabled={!dirty}>Revert</button>
            <button type="button" className="primary" onClick={() => apply.current()} disabled={!dirty} title="Apply (Ctrl/Cmd+Enter)">Apply</button>
          </>
        )}
      </div>
      <div ref={host} className="code-host" />
      {errors.length > 0 && (
        <ul className="code-errors" role="alert">
          {errors.slice(0, 5).map((e, i) => (
            <li key={i}>{e.at ? `Line ${e.at.line}: ` : ''}{e.path ? `${e.path}: ` : ''}{e.message}</li>
          ))}
        </ul>
      )}
    </section>
  );
}
