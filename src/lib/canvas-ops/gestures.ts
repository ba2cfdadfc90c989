import type { Op } from '../model/op-types.ts';
import type { MachineDefinition } from '../model/types.ts';
import { addChildOps, addSiblingOps, connectOps, deleteOps, renameOps, setEventOps } from './edits.ts';
import { retargetOps } from './retarget.ts';

/** What a canvas gesture means, as the canvas machine tells it (ids arrive with the intent). */
export type CanvasEdit =
  | { type: 'edit.addChild'; parent: string; id: string }
  | { type: 'edit.addSibling'; sibling: string; id: string }
  | { type: 'edit.rename'; id: string; key: string }
  | { type: 'edit.delete'; ids: string[] }
  | { type: 'edit.connect'; source: string; target: string; id: string }
  | { type: 'edit.event'; id: string; event: string }
  /** The arrow for `targets[index]` of transition `id` now ends at `target`. */
  | { type: 'edit.retarget'; id: string; index: number; target: string };

/** A gesture as ops on the current definition; none when what it names is gone (a peer deleted it meanwhile). */
export function opsForEdit(def: MachineDefinition, edit: CanvasEdit): Op[] {
  switch (edit.type) {
    case 'edit.addChild':
      return def.states[edit.parent] ? addChildOps(def, edit.parent, edit.id) : [];
    case 'edit.addSibling':
      return def.states[edit.sibling] ? addSiblingOps(def, edit.sibling, edit.id) : [];
    case 'edit.rename':
      return renameOps(def, edit.id, edit.key);
    case 'edit.delete':
      return deleteOps(def, edit.ids);
    case 'edit.connect':
      return def.states[edit.source] && def.states[edit.target]
        ? connectOps(def, edit.source, edit.target, edit.id)
        : [];
    case 'edit.event':
      return setEventOps(def, edit.id, edit.event);
    case 'edit.retarget':
      return retargetOps(def, edit.id, edit.index, edit.target);
  }
}
