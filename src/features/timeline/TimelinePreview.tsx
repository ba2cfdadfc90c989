import { useMemo } from 'react';
import type { TimelinePreview as Preview } from '../../../machines/open-machine/timeline.machine.ts';
import type { Layout } from '../../lib/layout/types.ts';
import { DiagramShapes, type PeerMark } from '../canvas/shapes.tsx';

interface Props {
  preview: Preview;
  layout: Layout | null;
  author: string;
  canEdit: boolean;
  onRestore: () => void;
  onClose: () => void;
}

const NONE: Record<string, number> = {};
const CHANGED_COLOR = '#e5484d';

/**
 * Time travel: the diagram as it was after one edit, read-only, with what that edit added
 * or changed outlined. "Restore this version" asks the open machine to make the machine
 * this again (ordinary ops, so Undo takes it back).
 */
export function TimelinePreview({ preview, layout, author, canEdit, onRestore, onClose }: Props) {
  const { entry, definition } = preview;
  const marks: PeerMark[] = useMemo(
    () => [{ id: 'changed', name: 'Changed', color: CHANGED_COLOR, selection: entry.changed }],
    [entry.changed],
  );
  const changedKeys = entry.changed
    .map((id) => (Object.hasOwn(definition.states, id) ? definition.states[id]?.key : undefined))
    .filter((k): k is string => !!k);
  return (
    <section className="tl-preview" role="region" aria-label={`Version ${entry.lastSeq}`}>
      <header className="tl-preview-head">
        <h3>Version {entry.lastSeq}</h3>
        <span className="badge">Read-only</span>
        <span className="tl-preview-what">
          After {author} {entry.text}
        </span>
        {canEdit && (
          <button type="button" onClick={onRestore}>
            Restore this version
          </button>
        )}
        <button type="button" onClick={onClose}>
          Back to now
        </button>
      </header>
      {changedKeys.length > 0 && (
        <p className="tl-changed" data-changed={changedKeys.join(' ')}>
          Changed: {changedKeys.join(', ')}
        </p>
      )}
      <div className="tl-preview-stage" data-version={entry.lastSeq}>
        {layout ? (
          <svg
            className="diagram-svg tl-preview-svg"
            viewBox={`-8 -8 ${layout.width + 16} ${layout.height + 16}`}
            role="img"
            aria-label={`The diagram at version ${entry.lastSeq}`}
          >
            <DiagramShapes
              definition={definition}
              layout={layout}
              selection={entry.changed}
              peers={marks}
              canEdit={false}
              hidden={NONE}
            />
          </svg>
        ) : (
          <p role="status">Laying out version {entry.lastSeq}…</p>
        )}
      </div>
    </section>
  );
}
