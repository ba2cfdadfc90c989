import { useEffect, useRef } from 'react';
import { copyState } from '../../lib/inspector/clipboard.ts';
import type { InspectorEdit } from '../../lib/inspector/edits.ts';
import type { MachineDefinition, StateType } from '../../lib/model/types.ts';
import { useCanEditCanvas, useLayout, useSelection } from '../canvas/open-machine-context.ts';
import { ExportMenu } from './ExportMenu.tsx';
import { ImportPanel } from './ImportPanel.tsx';
import { useInspectorError, useInspectorSend, useInspectorShown } from './inspector-selectors.ts';
import { readClip, writeClip } from './state-clip.ts';
import { MachineSection } from './MachineSection.tsx';
import { StateSection } from './StateSection.tsx';
import { TransitionSection } from './TransitionSection.tsx';
import './inspector.css';

/** Keys that add a state of a type under the selected state (the machine when none): P, H, F. */
const ADD_KEYS: Record<string, StateType> = { p: 'parallel', h: 'history', f: 'final' };

/**
 * The Inspector beside the diagram (a region named "Inspector"): the selected state or
 * transition, else the machine, edited field by field through the open machine's
 * `inspector` child (which hears the definition, selection and rights from the open
 * machine and sends its ops back there for the document); with the Export menu and the
 * Import button above it.
 */
export function Inspector({ definition }: { definition: MachineDefinition }) {
  const canEdit = useCanEditCanvas();
  const selection = useSelection();
  const layout = useLayout();
  const send = useInspectorSend();
  const root = useRef<HTMLElement>(null);
  const keys = useRef<HTMLDetailsElement>(null);

  const edit = (e: InspectorEdit) => send({ type: 'inspector.edit', edit: e });
  const shown = useInspectorShown();
  const error = useInspectorError();
  const one = selection.length === 1 ? selection[0] : undefined;
  const state = one !== undefined && Object.hasOwn(definition.states, one) ? definition.states[one] : undefined;
  const transition =
    one !== undefined && Object.hasOwn(definition.transitions, one) ? definition.transitions[one] : undefined;
  const parent = state?.id ?? definition.root;
  const addChild = (type: StateType) => edit({ kind: 'state.addChild', parent, type });
  const copy = () => {
    const clip = state ? copyState(definition, state.id) : null;
    if (clip) writeClip(clip);
  };
  // With nothing copied the edit answers "nothing to paste" in the panel.
  const paste = () => edit({ kind: 'state.paste', parent, clip: readClip() ?? { states: [], transitions: [] } });

  // P, H and F on the diagram add a parallel, history or final state (listed under "?" in the panel).
  const addRef = useRef(addChild);
  addRef.current = addChild;
  const clipRef = useRef({ copy, paste });
  clipRef.current = { copy, paste };
  // "?" on the diagram opens (or closes) the list of shortcuts.
  // Ctrl/Cmd+C and Ctrl/Cmd+V on the diagram copy the selected state and paste under the selection.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target instanceof Element ? e.target : null;
      if (!target?.closest('.diagram') || e.altKey) return;
      if (e.ctrlKey || e.metaKey) {
        const key = e.key.toLowerCase();
        if (key === 'c') clipRef.current.copy();
        else if (key === 'v' && canEdit) clipRef.current.paste();
        return;
      }
      const type = ADD_KEYS[e.key.toLowerCase()];
      if (e.key === '?' && keys.current) {
        e.preventDefault();
        keys.current.open = !keys.current.open;
        if (keys.current.open) keys.current.scrollIntoView({ block: 'nearest' });
      } else if (type && canEdit) {
        e.preventDefault();
        addRef.current(type);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [canEdit]);

  const findSvg = () =>
    (root.current?.closest('.machine-body') ?? document).querySelector<SVGSVGElement>('svg.diagram-svg');

  return (
    <section ref={root} className="inspector" aria-label="Inspector">
      <div className="inspector-row inspector-tools">
        <ExportMenu
          definition={definition}
          size={layout ? { width: layout.width, height: layout.height } : null}
          findSvg={findSvg}
        />
        <ImportPanel canEdit={canEdit} />
      </div>
      {canEdit && (
        <div className="inspector-row" role="group" aria-label="Add a state">
          <button type="button" onClick={() => addChild('parallel')} title="Add a parallel state (P)">
            Add parallel state
          </button>
          <button type="button" onClick={() => addChild('history')} title="Add a history state (H)">
            Add history state
          </button>
          <button type="button" onClick={() => addChild('final')} title="Add a final state (F)">
            Add final state
          </button>
          <button type="button" onClick={copy} disabled={!state} title="Copy the selected state (Ctrl/Cmd+C)">
            Copy state
          </button>
          <button type="button" onClick={paste} title="Paste under the selection (Ctrl/Cmd+V)">
            Paste state
          </button>
        </div>
      )}
      {error && (
        <p className="message error" role="alert">
          {error}{' '}
          <button type="button" className="link" onClick={() => send({ type: 'inspector.dismissError' })}>
            Dismiss
          </button>
        </p>
      )}
      {shown === 'state' && state ? (
        <StateSection key={state.id} definition={definition} state={state} canEdit={canEdit} edit={edit} />
      ) : shown === 'transition' && transition ? (
        <TransitionSection
          key={transition.id}
          definition={definition}
          transition={transition}
          canEdit={canEdit}
          edit={edit}
        />
      ) : (
        <MachineSection definition={definition} canEdit={canEdit} edit={edit} />
      )}
      <details ref={keys} className="inspector-keys">
        <summary>? Keyboard shortcuts</summary>
        <ul>
          <li>Tab: add a child state; Shift+Enter: add a sibling</li>
          <li>P / H / F: add a parallel / history / final state under the selection</li>
          <li>Enter or F2: rename; double-click an edge: edit its event</li>
          <li>Delete: delete; Ctrl/Cmd+Z: undo; Shift+Ctrl/Cmd+Z: redo</li>
          <li>+ / − / 0: zoom in, out, to fit</li>
          <li>
            Ctrl/Cmd+C, Ctrl/Cmd+V: copy a state with its subtree, paste it under the selection (here or in another
            machine)
          </li>
          <li>?: show or hide this list</li>
        </ul>
      </details>
    </section>
  );
}
