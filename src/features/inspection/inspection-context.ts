import { createActorContext, useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { inspectionFollowMachine } from '../../../machines/inspection-follow.machine.ts';
import { inspectionMachine, parseDefinitionText } from '../../../machines/inspection.machine.ts';
import type { Presenter } from '../../lib/ports/inspection-follow.ts';
import { EMPTY_FOLD, foldOnward, type LiveFold } from '../../lib/inspection/live-fold.ts';

/**
 * The inspection machine for the React tree (provided by the composition root with the
 * project and whether the person is an owner); views read it through these hooks.
 */
export const InspectionContext = createActorContext(inspectionMachine);

type Snapshot = SnapshotFrom<typeof inspectionMachine>;

/**
 * The machine only appends events or merges read ones in by seq, so two lists with the same
 * length, first and last event hold the same events: O(1) instead of comparing them all.
 */
const sameEnds = <T>(a: readonly T[], b: readonly T[]) =>
  a === b || (a.length === b.length && a[0] === b[0] && a[a.length - 1] === b[b.length - 1]);

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

/**
 * The picked session folded up to the shown position (all of it when following live).
 * Folded onward from the last render's fold (src/lib/inspection/live-fold.ts): a live event
 * costs its own fold, not the session's, and what it did not change keeps its identity.
 */
export function useInspectionView(): LiveFold & { total: number; position: number } {
  const events = InspectionContext.useSelector((s: Snapshot) => s.context.events, sameEnds);
  const position = InspectionContext.useSelector((s: Snapshot) => s.context.position);
  const last = useRef<LiveFold>(EMPTY_FOLD);
  const fold = useMemo(() => foldOnward(last.current, events, position ?? events.length), [events, position]);
  useEffect(() => {
    last.current = fold;
  }, [fold]);
  return useMemo(() => ({ ...fold, total: events.length, position: fold.count }), [fold, events.length]);
}

/**
 * An actor's machine config, as the shown events' latest `@xstate.actor` for it carried it:
 * parsed once per text, so a live event does not hand the diagram a new object.
 */
export function useActorConfig(fold: LiveFold, actorId: string | null): Record<string, unknown> | null {
  const text = actorId ? (fold.definitions.get(actorId) ?? null) : null;
  return useMemo(() => parseDefinitionText(text), [text]);
}

const NO_FOLLOW = { live: false, presenting: false, followed: null, presenters: [] as Presenter[] };
type FollowView = { live: boolean; presenting: boolean; followed: string | null; presenters: Presenter[] };
const sameFollow = (a: FollowView, b: FollowView) =>
  a.live === b.live && a.presenting === b.presenting && a.followed === b.followed && a.presenters === b.presenters;

/** Follow mode as the page shows it: joined, presenting, whom this person follows, who presents. */
export function useFollow(): FollowView {
  // Children are typed loosely (any of the machine's actors): this one is follow mode's machine.
  const ref = InspectionContext.useSelector((s: Snapshot) => s.children.follow) as
    ActorRefFrom<typeof inspectionFollowMachine> | undefined;
  return useSelector(
    ref,
    (s): FollowView =>
      s
        ? {
            live: s.hasTag('live'),
            presenting: s.hasTag('presenting'),
            followed: s.context.followed,
            presenters: s.context.presenters,
          }
        : NO_FOLLOW,
    sameFollow,
  );
}
