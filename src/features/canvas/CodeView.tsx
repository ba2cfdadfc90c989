import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { forceLinting, linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { bracketMatching, defaultHighlightStyle, foldGutter, syntaxHighlighting } from '@codemirror/language';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { useCallback, useEffect, useRef } from 'react';
import { checkXStateText, type CheckResult } from '../../lib/model/check.ts';
import type { Issue } from '../../lib/model/types.ts';
import { useCodeDirty, useCodeErrors, useCodeRef } from './open-machine-context.ts';

function diagnostics(result: CheckResult, length: number): Diagnostic[] {
  return result.issues.map((i: Issue) => {
    const from = Math.min(i.at?.offset ?? 0, length);
    return {
      from,
      to: Math.max(from, Math.min(i.at?.end ?? from, length)),
      severity: i.severity,
      message: i.path ? `${i.path}: ${i.message}` : i.message,
    };
  });
}

/**
 * The XState v5 JSON config in CodeMirror 6. The model's checks (syntax, duplicate keys,
 * import, validation) are inline diagnostics. Its modes (following the definition, edited,
 * invalid) are the open machine's `code` child (machines/code-view.machine.ts): the editor
 * reports what is typed, the machine says what to show, and "Apply" sends the text, which
 * it checks and hands on as a replaced definition (with errors nothing changes).
 */
export function CodeView({ canEdit }: { canEdit: boolean }) {
  const code = useCodeRef();
  const dirty = useCodeDirty();
  const errors = useCodeErrors();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);

  const apply = useCallback(() => {
    const v = view.current;
    if (!v) return;
    code?.send({ type: 'code.apply', text: v.state.doc.toString() });
    forceLinting(v);
  }, [code]);
  const applyRef = useRef(apply);
  applyRef.current = apply;

  useEffect(() => {
    if (!host.current || !code) return;
    const v = new EditorView({
      parent: host.current,
      doc: code.getSnapshot().context.shown,
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
        keymap.of([{ key: 'Mod-Enter', run: () => (applyRef.current(), true) }, ...defaultKeymap, ...historyKeymap]),
        EditorView.editable.of(canEdit),
        EditorView.contentAttributes.of({ 'aria-label': 'Machine config (XState v5 JSON)' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) code.send({ type: 'code.typed', text: u.state.doc.toString() });
        }),
      ],
    });
    view.current = v;
    // What the machine shows (a new definition while following, or a revert) replaces the text.
    const shown = code.on('code.show', ({ text }) => {
      if (v.state.doc.toString() !== text) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
    });
    return () => {
      shown.unsubscribe();
      v.destroy();
      view.current = null;
      // Unapplied text goes with the editor.
      code.send({ type: 'code.revert' });
    };
  }, [canEdit, code]);

  const revert = () => code?.send({ type: 'code.revert' });

  return (
    <section className="code-view" aria-label="Code">
      <div className="code-bar">
        <span className="muted">{dirty ? 'Edited — apply to share' : 'XState v5 config'}</span>
        {canEdit && (
          <>
            <button type="button" onClick={revert} disabled={!dirty}>
              Revert
            </button>
            <button type="button" className="primary" onClick={apply} disabled={!dirty} title="Apply (Ctrl/Cmd+Enter)">
              Apply
            </button>
          </>
        )}
      </div>
      <div ref={host} className="code-host" />
      {errors.length > 0 && (
        <ul className="code-errors" role="alert">
          {errors.slice(0, 5).map((e, i) => (
            <li key={i}>
              {e.at ? `Line ${e.at.line}: ` : ''}
              {e.path ? `${e.path}: ` : ''}
              {e.message}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
