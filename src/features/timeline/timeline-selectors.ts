import { useSelector } from '@xstate/react';
import { useMemo } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { timelineMachine, TimelinePreview } from '../../../machines/open-machine/timeline.machine.ts';
import type { Layout } from '../../lib/layout/types.ts';
import { mergeSorted, type TimelineEntry, type TimelineFilter } from '../../lib/timeline/index.ts';

/** The timeline actor (a child of the open machine) and the slices its views read. */
export type TimelineActor = ActorRefFrom<typeof timelineMachine>;
type Snapshot = SnapshotFrom<typeof timelineMachine>;

const edits = (s: Snapshot) => s.context.history.entries;
const others = (s: Snapshot) => s.context.others;

/** Every entry in time order: edit batches merged with simulations, events and joins. */
export function useTimelineEntries(actor: TimelineActor): readonly TimelineEntry[] {
  const e = useSelector(actor, edits);
  const o = useSelector(actor, others);
  return useMemo(() => mergeSorted(e, o), [e, o]);
}

export const useTimelineFilter = (actor: TimelineActor): TimelineFilter => useSelector(actor, (s) => s.context.filter);
export const useTimelineError = (actor: TimelineActor): string | null => useSelector(actor, (s) => s.context.error);
export const useTimelineLoading = (actor: TimelineActor): boolean => useSelector(actor, (s) => s.hasTag('loading'));
export const useTimelineFailed = (actor: TimelineActor): boolean => useSelector(actor, (s) => s.hasTag('failed'));
export const useTimelinePreview = (actor: TimelineActor): TimelinePreview | null =>
  useSelector(actor, (s) => s.context.preview);

/** The preview's layout, once laid out for the definition shown. */
export function usePreviewLayout(actor: TimelineActor): Layout | null {
  const layoutRef = useSelector(actor, (s) => s.children.previewLayout);
  const preview = useTimelinePreview(actor);
  return useSelector(layoutRef, (s) =>
    s && preview && s.context.laidOut === preview.definition ? s.context.layout : null,
  );
}
