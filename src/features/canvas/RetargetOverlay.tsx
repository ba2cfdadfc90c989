import type { DragLine } from '../../../machines/open-machine/canvas.machine.ts';
import type { Layout } from '../../lib/layout/types.ts';
import type { MachineDefinition } from '../../lib/model/types.ts';

interface Props {
  definition: MachineDefinition;
  layout: Layout;
  selection: string[];
  canEdit: boolean;
  connect: DragLine | null;
}

/**
 * Drawn over the diagram: a handle on the arrowhead of each arrow of a selected transition
 * (editors only; dragging it onto a state retargets that arrow, see Diagram's pointer
 * handlers), and the outline of the state under the pointer while a connecting or
 * retargeting drag is under way (the drop target).
 */
export function RetargetOverlay({ definition, layout, selection, canEdit, connect }: Props) {
  const over = connect?.over ? layout.nodes[connect.over] : undefined;
  const handles = canEdit && !connect ? endHandles(definition, layout, selection) : [];
  return (
    <>
      {over && (
        <rect
          className="drop-target"
          data-drop-target={over.id}
          x={over.x - 3}
          y={over.y - 3}
          width={over.width + 6}
          height={over.height + 6}
          rx={12}
        />
      )}
      {handles.map((h) => (
        <circle
          key={h.key}
          className="tr-end-handle"
          data-retarget-for={h.transition}
          data-retarget-index={h.index}
          data-retarget-source={h.source}
          cx={h.x}
          cy={h.y}
          r={7}
          role="button"
          aria-label={`Drag to retarget ${h.name}`}
        />
      ))}
    </>
  );
}

interface EndHandle {
  key: string;
  transition: string;
  index: number;
  source: string;
  name: string;
  x: number;
  y: number;
}

/** One handle per drawn arrow of the selected transitions that has a target (a targetless loop has no end to move). */
function endHandles(definition: MachineDefinition, layout: Layout, selection: string[]): EndHandle[] {
  const out: EndHandle[] = [];
  for (const edge of Object.values(layout.edges)) {
    const t = definition.transitions[edge.transition];
    const end = edge.points.at(-1);
    if (!t || !end || edge.targetless || !selection.includes(t.id)) continue;
    const index = t.targets.indexOf(edge.target);
    if (index < 0) continue;
    const name = `${edge.label?.text ?? 'transition'} → ${definition.states[edge.target]?.key ?? ''}`;
    out.push({ key: edge.id, transition: t.id, index, source: t.source, name, ...end });
  }
  return out;
}
