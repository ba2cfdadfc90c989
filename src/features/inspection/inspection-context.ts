import { createActorContext } from '@xstate/react';
import { useMemo } from 'react';
import type { SnapshotFrom } from 'xstate';
import { definitionTextOf, inspectionMachine, parseDefinitionText } from '../../../machines/inspection.machine.ts';
import { foldEvents, type InspectionView } from '../../lib/inspection/replay.ts';

/**
 * The inspection machine for the React tree (provided by the composition root with the
 * project and whether the person is an owner); views read it through these hooks.
 */
export const InspectionContext = createActorContext(inspectionMachine);

type Snapshot = SnapshotFrom<typeof inspectionMachine>;

const sameList = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export const useInspectionSend = () => {
  const actor = InspectionContext.useActorRef();
  return actor.send.bind(actor);
};
export const useInspectionStatus = () =>
  InspectionContext.useSelector((s: Snapshot) =>
    s.matches('loading') ? 'loading' : s.matches('failed') ? 'failed' : 'ready',
  );
export const useInspection = <T>(pick: (c: Snapshot['context']) => T, compare?: (a: T, b: T) => boolean) =>
  InspectionContext.useSelector((s: Snapshot) => pick(s.context), compare);
export const useInspectionBusy = () =>
  InspectionContext.useSelector((s: Snapshot) => (s.matches({ ready: { work: 'idle' } }) ? null : 'busy'));

/** The picked session folded up to the shown position (all of it when following live). */
export function useInspectionView(): InspectionView & { total: number; position: number } {
  const events = InspectionContext.useSelector((s: Snapshot) => s.context.events, sameList);
  const position = InspectionContext.useSelector((s: Snapshot) => s.context.position);
  return useMemo(() => {
    const shown = position ?? events.length;
    return { ...foldEvents(events, shown), total: events.length, position: shown };
  }, [events, position]);
}

/**
 * The picked actor's machine config, as its `@xstate.actor` event carried it. Selected as
 * text and parsed once per text, so a live event does not hand the diagram a new object.
 */
export function usePickedConfig(): Record<string, unknown> | null {
  const text = InspectionContext.useSelector((s: Snapshot) => definitionTextOf(s.context, s.context.actorId));
  return useMemo(() => parseDefinitionText(text), [text]);
}
