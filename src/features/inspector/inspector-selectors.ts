import { useCallback } from 'react';
import type { SnapshotFrom } from 'xstate';
import type {
  ImportedMachine,
  InspectorEvent,
  InspectorTag,
  inspectorMachine,
} from '../../../machines/open-machine/inspector.machine.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { useInspectorRef } from '../canvas/open-machine-context.ts';

/** Named selector hooks over the open machine's `inspector` child, one slice each. */

type Snapshot = SnapshotFrom<typeof inspectorMachine>;

const shownOf = (s: Snapshot): InspectorTag =>
  s.hasTag('state') ? 'state' : s.hasTag('transition') ? 'transition' : 'machine';

/** What the Inspector shows: the selected state or transition, else the machine. */
export const useInspectorShown = (): InspectorTag => useChildSelector(useInspectorRef(), shownOf, 'machine');
export const useInspectorError = (): string | null => useChildSelector(useInspectorRef(), (s) => s.context.error, null);
/** The machine read from a file, under review (null: none). */
export const useImported = (): ImportedMachine | null =>
  useChildSelector(useInspectorRef(), (s) => s.context.imported, null);
export const useImportError = (): string | null =>
  useChildSelector(useInspectorRef(), (s) => s.context.importError, null);
/** Replacing this machine with the imported one waits for a confirmation. */
export const useImportConfirming = (): boolean =>
  useChildSelector(useInspectorRef(), (s) => s.matches({ importing: 'confirming' }), false);

export function useInspectorSend(): (event: InspectorEvent) => void {
  const inspector = useInspectorRef();
  return useCallback((event: InspectorEvent) => inspector?.send(event), [inspector]);
}
