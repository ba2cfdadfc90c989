import { useState, type CSSProperties, type ReactNode } from 'react';
import type { CanvasIntent, Viewport } from '../../../machines/open-machine/canvas.machine.ts';
import { keyProblem } from '../../lib/canvas-ops/edits.ts';
import type { Layout } from '../../lib/layout/types.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';

/** The diagram's inline editors: a state's name and a transition's event, over the item at its screen position. */

interface BoxProps {
  definition: MachineDefinition;
  layout: Layout;
  viewport: Viewport;
  send: (intent: CanvasIntent) => void;
  id: string;
}

export function RenameBox({ definition, layout, viewport, send, id }: BoxProps) {
  const [value, setValue] = useState(definition.states[id]?.key ?? '');
  const node = layout.nodes[id];
  const problem = keyProblem(definition, id, value);
  // A brand-new state may not be laid out yet: place the box at the parent's corner.
  const anchor =
    node ?? (definition.states[id]?.parent ? layout.nodes[definition.states[id]?.parent ?? ''] : undefined);
  if (!anchor) return null;
  const style = {
    left: anchor.x * viewport.zoom + viewport.x,
    top: anchor.y * viewport.zoom + viewport.y,
    width: Math.max(120, anchor.width * viewport.zoom),
  };
  const commit = () => send(problem ? { type: 'canvas.cancel' } : { type: 'canvas.renameCommit', key: value });
  return (
    <InlineInput
      style={style}
      label="State name"
      invalid={problem !== null}
      value={value}
      onChange={setValue}
      onCommit={commit}
      // Enter on a name that cannot be used keeps the field open, with the reason shown.
      onEnter={() => !problem && send({ type: 'canvas.renameCommit', key: value })}
      onCancel={() => send({ type: 'canvas.cancel' })}
    >
      {problem && value !== (definition.states[id]?.key ?? '') && (
        <p className="inline-error" role="alert">
          {problem}
        </p>
      )}
    </InlineInput>
  );
}

export function LabelBox({ definition, layout, viewport, send, id }: BoxProps) {
  const t = definition.transitions[id];
  const [value, setValue] = useState(typeof t?.event === 'string' ? t.event : 'EVENT');
  const edge = layout.edges[id];
  const src = t ? layout.nodes[t.source] : undefined;
  const at = edge?.label ?? (src ? { x: src.x + src.width, y: src.y } : null);
  if (!at) return null;
  const style = { left: at.x * viewport.zoom + viewport.x, top: at.y * viewport.zoom + viewport.y, width: 160 };
  const commit = () => send({ type: 'canvas.labelCommit', event: value });
  return (
    <InlineInput
      style={style}
      label="Event name"
      value={value}
      onChange={setValue}
      onCommit={commit}
      onCancel={() => send({ type: 'canvas.cancel' })}
    />
  );
}

interface InlineInputProps {
  style: CSSProperties;
  label: string;
  invalid?: boolean;
  value: string;
  onChange: (value: string) => void;
  /** Leaving the field (and Enter, unless `onEnter` says otherwise). */
  onCommit: () => void;
  onEnter?: () => void;
  onCancel: () => void;
  children?: ReactNode;
}

/** A text field over the diagram: selected on focus, Enter or blur commits, Escape cancels; keys stay out of the diagram's shortcuts. */
function InlineInput({
  style,
  label,
  invalid = false,
  value,
  onChange,
  onCommit,
  onEnter = onCommit,
  onCancel,
  children,
}: InlineInputProps) {
  return (
    <div className="inline-editor" style={style}>
      <input
        autoFocus
        aria-label={label}
        aria-invalid={invalid}
        value={value}
        onFocus={(e) => e.currentTarget.select()}
        onChange={(e) => onChange(e.target.value)}
        onBlur={onCommit}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Enter') onEnter();
          if (e.key === 'Escape') onCancel();
        }}
      />
      {children}
    </div>
  );
}
