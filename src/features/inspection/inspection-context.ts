import { createActorContext, useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { inspectionDiagramMachine } from '../../../machines/inspection/inspection-diagram.machine.ts';
import type { inspectionFollowMachine } from '../../../machines/inspection/inspection-follow.machine.ts';
import type { inspectionSessionMachine } from '../../../machines/inspection/inspection-session.machine.ts';
import type { inspectionSourcesMachine } from '../../../machines/inspection/inspection-sources.machine.ts';
import { inspectionMachine } from '../../../machines/inspection/inspection.machine.ts';
import { parseDefinitionText } from '../../lib/inspection/actor-config.ts';
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
    s.hasTag('loading') ? 'loading' : s.hasTag('failed') ? 'failed' : 'ready',
  );
export const useInspection = <T>(pick: (c: Snapshot['context']) => T, compare?: (a: T, b: T) => boolean) =>
  InspectionContext.useSelector((s: Snapshot) => pick(s.context), compare);

// Children are typed loosely (any of the machine's actors): each is looked up by its id.
type SourcesRef = ActorRefFrom<typeof inspectionSourcesMachine>;
type SessionRef = ActorRefFrom<typeof inspectionSessionMachine>;
type DiagramRef = ActorRefFrom<typeof inspectionDiagramMachine>;
const useChild = <R>(id: 'sources' | 'session' | 'diagram') =>
  InspectionContext.useSelector((s: Snapshot) => s.children[id]) as R | undefined;

/** The `sources` child's context: the sources, the key just created, whether one may edit. */
export function useInspectionSources<T>(pick: (c: SnapshotFrom<SourcesRef>['context'] | undefined) => T): T {
  return useSelector(useChild<SourcesRef>('sources'), (s) => pick(s?.context));
}
/** The picked session's context (undefined while none is picked). */
export function useInspectionSession<T>(
  pick: (c: SnapshotFrom<SessionRef>['context'] | undefined) => T,
  compare?: (a: T, b: T) => boolean,
): T {
  return useSelector(useChild<SessionRef>('session'), (s) => pick(s?.context), compare);
}
/** The picked actor's diagram: its layout (for the actor it was laid out for). */
export function useInspectionLayout() {
  return useSelector(useChild<DiagramRef>('diagram'), (s) => s?.context.layout ?? null);
}
/** A request in flight (a source's, or saving a machine): 'busy', else null. */
export function useInspectionBusy(): 'busy' | null {
  const sources = useSelector(useChild<SourcesRef>('sources'), (s) => s?.hasTag('busy') ?? false);
  const saving = useSelector(useChild<DiagramRef>('diagram'), (s) => s?.hasTag('busy') ?? false);
  return sources || saving ? 'busy' : null;
}
/** The first error to show: loading's, a source request's, a save's, or a session read's. */
export function useInspectionError(): string | null {
  const own = InspectionContext.useSelector((s: Snapshot) => s.context.error);
  const sources = useSelector(useChild<SourcesRef>('sources'), (s) => s?.context.error ?? null);
  const diagram = useSelector(useChild<DiagramRef>('diagram'), (s) => s?.context.error ?? null);
  const session = useSelector(useChild<SessionRef>('session'), (s) => s?.context.error ?? null);
  return own ?? sources ?? diagram ?? session;
}

const NO_EVENTS: never[] = [];

/**
 * The picked session folded up to the shown position (all of it when following live).
 * Folded onward from the last render's fold (src/lib/inspection/live-fold.ts): a live event
 * costs its own fold, not the session's, and what it did not change keeps its identity.
 */
export function useInspectionView(): LiveFold & { total: number; position: number } {
  const events = useInspectionSession((c) => c?.events ?? NO_EVENTS, sameEnds);
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
