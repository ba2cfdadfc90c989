import { useCallback, useMemo } from 'react';
import type { SnapshotFrom } from 'xstate';
import type { PlaybackIntent, testPlaybackMachine } from '../../../machines/open-machine/test-playback.machine.ts';
import { watchedPlay } from '../../../machines/open-machine/test-playback.machine.ts';
import type { TestsIntent, testsMachine } from '../../../machines/open-machine/tests.machine.ts';
import type { SavedTest, TestRun } from '../../lib/ports/machine-tests.ts';
import type { PlayShown, RoomPlay } from '../../lib/ports/test-playback.ts';
import type { Coverage, CoverageSources, Staleness, TestPath } from '../../lib/testing/index.ts';
import { statesAt } from '../../lib/testing/panel.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { useTestPlaybackRef, useTestsRef } from '../canvas/open-machine-context.ts';

/**
 * Named selector hooks over the open machine's `tests` and `testPlayback` children: one
 * slice each, for the Tests panel and for the marks the Diagram draws (coverage, played
 * states).
 */

type TestsSnapshot = SnapshotFrom<typeof testsMachine>;
type PlaybackSnapshot = SnapshotFrom<typeof testPlaybackMachine>;

const NO_TESTS: SavedTest[] = [];
const NO_RUNS: Record<string, TestRun> = {};
const NO_PATHS: TestPath[] = [];
const NO_STALE: Record<string, Staleness> = {};
const NO_SOURCES: CoverageSources = { runs: [], simulations: 0, tests: 0 };
const NO_STATES: string[] = [];

const useTests = <T>(selector: (s: TestsSnapshot) => T, fallback: T, compare?: (a: T, b: T) => boolean): T =>
  useChildSelector(useTestsRef(), selector, fallback, compare);

export const useSavedTests = (): SavedTest[] => useTests((s) => s.context.tests, NO_TESTS);
export const useTestRuns = (): Record<string, TestRun> => useTests((s) => s.context.runs, NO_RUNS);
export const useGeneratedPaths = (): TestPath[] => useTests((s) => s.context.paths, NO_PATHS);
export const useStaleTests = (): Record<string, Staleness> => useTests((s) => s.context.stale, NO_STALE);
export const useCoverageOn = (): boolean => useTests((s) => s.context.coverage, false);
/** Coverage of the open definition while the switch is on, else null. */
export const useCoverage = (): Coverage | null => useTests((s) => s.context.measured, null);
export const useCoverageSources = (): CoverageSources => useTests((s) => s.context.sources, NO_SOURCES);
export const useTestsSelected = (): string | null => useTests((s) => s.context.selected, null);
/** The selected path or test at the step shown (null: nothing played here). */
export const useLocalPlay = (): PlayShown | null => useTests((s) => s.context.play, null);
export const useTestsError = (): string | null => useTests((s) => s.context.error, null);
export const useTestsGenerating = (): boolean => useTests((s) => s.hasTag('generating'), false);
export const useTestsBusy = (): boolean => useTests((s) => s.hasTag('busy'), false);
export const useTestsLoading = (): boolean => useTests((s) => s.hasTag('loading'), true);

export function useTestsSend(): (intent: TestsIntent) => void {
  const tests = useTestsRef();
  return useCallback((intent: TestsIntent) => tests?.send(intent), [tests]);
}

const watchedOf = (s: PlaybackSnapshot): RoomPlay | null => watchedPlay(s.context);

/** The play someone else plays for the room that this person watches, or null. */
export const useWatchedPlay = (): RoomPlay | null => useChildSelector(useTestPlaybackRef(), watchedOf, null);

export function usePlaybackSend(): (intent: PlaybackIntent) => void {
  const playback = useTestPlaybackRef();
  return useCallback((intent: PlaybackIntent) => playback?.send(intent), [playback]);
}

/** The states the played step shows: this person's own play, else the room's play they watch. */
export function usePlayedStates(): string[] {
  const local = useLocalPlay();
  const watched = useWatchedPlay();
  const play = local ?? watched;
  return useMemo(() => (play ? statesAt(play.script, play.step) : NO_STATES), [play]);
}

/** What the Diagram marks for the tests: covered states and transitions (coverage on), played states. */
export interface TestMarks {
  covered: { states: ReadonlySet<string>; transitions: ReadonlySet<string> } | null;
  played: ReadonlySet<string>;
}

export function useTestMarks(): TestMarks {
  const coverage = useCoverage();
  const played = usePlayedStates();
  const playedSet = useMemo(() => new Set(played), [played]);
  return useMemo(
    () => ({
      covered: coverage ? { states: coverage.states.covered, transitions: coverage.transitions.covered } : null,
      played: playedSet,
    }),
    [coverage, playedSet],
  );
}
