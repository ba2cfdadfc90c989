import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { forceLinting, linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { bracketMatching, defaultHighlightStyle, foldGutter, syntaxHighlighting } from '@codemirror/language';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { useCallback, useEffect, useRef } from 'react';
import { checkXStateText, type CheckResult } from '../../lib/model/check.ts';
import type { Issue } from '../../lib/model/types.ts';
import { useCodeDirty, useCodeErrors, useCodeRef } from './open-machine-context.ts';
import { changedRange } from './changed-range.ts';

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
 * invalid) are the open machine's `code` child (machines/open-machine/code-view.machine.ts): the editor
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
  // The editor widget's own events (typing, going away) are the person's intents, sent from here.
  const typed = useCallback((text: string) => code?.send({ type: 'code.typed', text }), [code]);
  const noteSeen = useCallback((seen: boolean) => code?.send({ type: 'code.seen', seen }), [code]);

  useEffect(() => {
    if (!host.current || !code) return;
    const v = new EditorView({
      parent: host.current,
      // A new editor (edit rights changed, or the panel mounted again) starts from the person's unapplied text, if any.
      doc: code.getSnapshot().context.typed ?? code.getSnapshot().context.shown,
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
        // Only the person's own text is checked: the text shown from the definition is the model's
        // own export (checking a 1,000-state chart's 150 kB after each of a peer's batches took
        // most of a second each time).
        linter(
          (ev) => {
            const text = ev.state.doc.toString();
            return text === code.getSnapshot().context.shown ? [] : diagnostics(checkXStateText(text), text.length);
          },
          { delay: 300 },
        ),
        keymap.of([{ key: 'Mod-Enter', run: () => (applyRef.current(), true) }, ...defaultKeymap, ...historyKeymap]),
        EditorView.editable.of(canEdit),
        EditorView.contentAttributes.of({ 'aria-label': 'Machine config (XState v5 JSON)' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) typed(u.state.doc.toString());
        }),
      ],
    });
    view.current = v;
    // What the machine shows (a new definition while following, or a revert) replaces the text.
    // While the Code panel is closed (still mounted, not displayed) the newest text waits and
    // goes in once the editor is seen again: updating a hidden editor cost a peer about 200 ms
    // per remote edit of a 1,000-state chart (parse, gutters, lint markers), for nobody.
    const host_ = host.current;
    let waiting: string | null = null;
    const show = (text: string) => {
      const change = changedRange(v.state.doc.toString(), text);
      if (change) v.dispatch({ changes: change });
    };
    const shown = code.on('code.show', ({ text }) => {
      if (host_.offsetParent === null) waiting = text;
      else show(text);
    });
    // Whether the editor is on screen goes to the machine, which serializes nothing while it
    // is not (and, seen again, sends the newest text: after any text that waited here); a
    // closed panel also ends an unapplied edit there, so the panel opens on the machine again.
    const seen = new IntersectionObserver((entries) => {
      const visible = entries.some((e) => e.isIntersecting);
      if (visible && waiting !== null) {
        const text = waiting;
        waiting = null;
        show(text);
      }
      if (visible !== code.getSnapshot().context.seen) noteSeen(visible);
    });
    seen.observe(host_);
    return () => {
      seen.disconnect();
      shown.unsubscribe();
      v.destroy();
      view.current = null;
      // Nothing is sent here: the code machine discards unapplied text itself when the panel
      // closes (`code.seen`) or edit rights go (`code.editableChanged`).
    };
  }, [canEdit, code, typed, noteSeen]);

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
