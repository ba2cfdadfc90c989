import { useRef, useState } from 'react';
import type { LeftOut } from '../../lib/convert/issues.ts';
import { exportXState } from '../../lib/model/export.ts';
import { useMachineListSend } from '../machines/machine-list-context.ts';
import { useImportConfirming, useImported, useImportError, useInspectorSend } from './inspector-selectors.ts';
import { LeftOutWarning } from './LeftOutWarning.tsx';

/**
 * Import: a file (or pasted text) in XState TypeScript/JavaScript, JSON or SCXML is read
 * (never run) and reviewed, then created as a new machine or, after a confirmation, put in
 * place of this one as ops that everyone sees and Undo reverts (through the open machine,
 * like every edit). A new machine is the machine list's to create, as the examples are.
 */
export function ImportPanel({ canEdit }: { canEdit: boolean }) {
  const send = useInspectorSend();
  const listSend = useMachineListSend();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  // What the last read had to leave out: shown loudly, so a partial chart never passes for the whole machine.
  const [leftOut, setLeftOut] = useState<LeftOut | null>(null);
  const file = useRef<HTMLInputElement>(null);
  const pasted = useRef<HTMLTextAreaElement>(null);
  const imported = useImported();
  const importError = useImportError();
  const confirming = useImportConfirming();
  const importAsNew = () => {
    if (imported)
      listSend({ type: 'list.create', machines: [{ name: imported.name, definition: imported.definition }] });
    send({ type: 'inspector.importAsNew' });
  };

  const read = async () => {
    const f = file.current?.files?.[0];
    const text = f ? await f.text() : (pasted.current?.value ?? '');
    if (text.trim() === '')
      return send({ type: 'inspector.importFailed', error: 'Choose a file or paste a machine first.' });
    setBusy(true);
    try {
      const convert = await import('../../lib/convert/index.ts');
      const result = convert.importText(text, f?.name ?? '');
      const errors = result.issues.filter((i) => i.severity === 'error');
      if (!result.definition) {
        send({
          type: 'inspector.importFailed',
          error: errors.map(convert.describeIssue).slice(0, 8).join('\n') || 'Nothing could be imported.',
        });
        return;
      }
      setLeftOut(result.leftOut ?? null);
      const name = f?.name.replace(/\.[^.]+$/, '') || result.definition.machineId || 'Imported machine';
      send({
        type: 'inspector.importRead',
        machine: {
          name,
          definition: { ...result.definition, name },
          config: exportXState(result.definition),
          notes: result.issues
            .filter((i) => !(result.leftOut && i.path === '' && i.message.startsWith('Left out')))
            .map(convert.describeIssue),
        },
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="inspector-import">
      <button type="button" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        Import
      </button>
      {open && (
        <div className="inspector-import-form" role="group" aria-label="Import a machine">
          <label>
            Machine file (TypeScript, JavaScript, JSON or SCXML)
            <input ref={file} type="file" accept=".ts,.tsx,.js,.jsx,.mjs,.json,.scxml,.xml" />
          </label>
          <label>
            Or paste it
            <textarea ref={pasted} rows={4} />
          </label>
          <button type="button" disabled={busy} onClick={() => void read()}>
            Read machine
          </button>
          {importError && (
            <pre className="message error" role="alert">
              {importError}
            </pre>
          )}
          {imported && (
            <div className="inspector-review" role="group" aria-label="Imported machine">
              <p>
                Read “{imported.name}”: {Object.keys(imported.definition.states).length - 1} states,{' '}
                {Object.keys(imported.definition.transitions).length} transitions.
              </p>
              {leftOut && <LeftOutWarning leftOut={leftOut} />}
              {imported.notes.length > 0 && (
                <ul className="inspector-notes" aria-label="Import notes">
                  {imported.notes.slice(0, 20).map((n, i) => (
                    <li key={i}>{n}</li>
                  ))}
                </ul>
              )}
              {confirming ? (
                <div role="alertdialog" aria-label="Replace this machine" className="canvas-confirm">
                  <span>
                    Replace this whole machine with “{imported.name}”? Everyone here sees the change; Undo brings it
                    back.
                  </span>
                  <button type="button" className="danger" onClick={() => send({ type: 'inspector.importConfirm' })}>
                    Replace machine
                  </button>
                  <button type="button" onClick={() => send({ type: 'inspector.importCancel' })}>
                    Keep this machine
                  </button>
                </div>
              ) : (
                <div className="inspector-row">
                  <button type="button" onClick={importAsNew}>
                    Import as new machine
                  </button>
                  {canEdit && (
                    <button type="button" onClick={() => send({ type: 'inspector.importReplace' })}>
                      Replace this machine
                    </button>
                  )}
                  <button type="button" onClick={() => send({ type: 'inspector.importCancel' })}>
                    Cancel
                  </button>
                </div>
              )}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
