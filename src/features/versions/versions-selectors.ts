import { useSelector } from '@xstate/react';
import { useContext, useMemo } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { VersionView, versionsMachine } from '../../../machines/open-machine/versions.machine.ts';
import type { Layout } from '../../lib/layout/types.ts';
import type { SavedVersion } from '../../lib/ports/versions.ts';
import type { TimelineEntry } from '../../lib/timeline/index.ts';
import { OpenMachineRefContext } from '../canvas/open-machine-context.ts';

/** The versions actor (a child of the open machine) and the slices its views read. */
export type VersionsActor = ActorRefFrom<typeof versionsMachine>;
type Snapshot = SnapshotFrom<typeof versionsMachine>;

/** The open machine's versions child, or null where no machine is open with one (a fixture). */
export function useVersionsRef(): VersionsActor | null {
  const open = useContext(OpenMachineRefContext);
  return useSelector(open ?? undefined, (s) => s?.children.versions ?? null);
}

export const useVersions = (a: VersionsActor): readonly SavedVersion[] => useSelector(a, (s) => s.context.versions);
export const useVersionsError = (a: VersionsActor): string | null => useSelector(a, (s) => s.context.error);
export const useVersionView = (a: VersionsActor): VersionView | null => useSelector(a, (s) => s.context.view);
export const useSelectedChange = (a: VersionsActor): string | null => useSelector(a, (s) => s.context.selected);
const tag = (name: Parameters<Snapshot['hasTag']>[0]) => (a: VersionsActor) => useSelector(a, (s) => s.hasTag(name));
export const useNaming = tag('naming');
export const useSavingVersion = tag('busy');
export const useReadingVersion = tag('reading');
export const useVersionsLoading = tag('loading');
export const useVersionsFailed = tag('failed');

const NO_HIDDEN: Record<string, number> = {};

/** The shown version's (or diff's) layout, once laid out for what is drawn (collapsed for the canvas's pane). */
export function useVersionLayout(a: VersionsActor | undefined): Layout | null {
  const layoutRef = useSelector(a, (s) => s?.children.viewLayout);
  const shown = useSelector(a, (s) => s?.context.drawn?.shown ?? null);
  return useSelector(layoutRef, (s) => (s && shown && s.context.laidOut === shown ? s.context.layout : null));
}

/**
 * What the main canvas shows in place of the live chart, for this person only: a version
 * opened or a diff (the versions machine's `view`, from the panel or a `view.diff`), with
 * its layout once laid out and the change picked; null while the canvas shows now.
 */
export interface CanvasReview {
  actor: VersionsActor;
  view: VersionView;
  layout: Layout | null;
  /** Compounds drawn collapsed, with how many states each hides. */
  hidden: Record<string, number>;
  selected: string | null;
}

export function useCanvasReview(): CanvasReview | null {
  const actor = useVersionsRef();
  const view = useSelector(actor ?? undefined, (s) => s?.context.view ?? null);
  const selected = useSelector(actor ?? undefined, (s) => s?.context.selected ?? null);
  const hidden = useSelector(actor ?? undefined, (s) => s?.context.drawn?.hidden ?? NO_HIDDEN);
  const layout = useVersionLayout(actor ?? undefined);
  return useMemo(
    () => (actor && view ? { actor, view, layout, hidden, selected } : null),
    [actor, view, layout, hidden, selected],
  );
}

/** Which view the canvas shows (null: the live chart): the canvas is drawn afresh, and fitted, for each. */
export function useCanvasReviewKey(): string | null {
  const actor = useVersionsRef();
  return useSelector(actor ?? undefined, (s) => {
    const view = s?.context.view;
    return view ? `${view.kind}:${view.version?.id ?? ''}:${view.against?.id ?? ''}:${view.label}` : null;
  });
}

const NO_VERSIONS: readonly SavedVersion[] = [];

/** The timeline's marks: each edit entry's named versions (their names joined), by entry key. */
export function useVersionMarks(entries: readonly TimelineEntry[]): ReadonlyMap<string, string> {
  const actor = useVersionsRef();
  const versions = useSelector(actor ?? undefined, (s) => s?.context.versions ?? NO_VERSIONS);
  return useMemo(() => {
    const names = new Map<string, string[]>();
    for (const v of versions) {
      const entry = entries.find((e) => e.kind === 'edit' && e.firstSeq <= v.seq && v.seq <= e.lastSeq);
      if (entry) names.set(entry.key, [...(names.get(entry.key) ?? []), v.name]);
    }
    return new Map([...names].map(([key, list]) => [key, list.join(', ')]));
  }, [versions, entries]);
}
