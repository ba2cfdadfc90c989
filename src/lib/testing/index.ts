/** Testing statecharts: generated paths, saved tests, coverage and exported Vitest files. */
export * from './types.ts';
export { buildTestGraph, type TestGraph, type GraphEdge, type GraphOptions } from './graph.ts';
export {
  shortestPaths,
  simplePaths,
  transitionCover,
  statePaths,
  DEFAULT_MAX_PATHS,
  type PathOptions,
} from './paths.ts';
export { runTest, scriptFromSimulation, toEntries } from './run.ts';
export { computeCoverage, coverageFigures, type Coverage, type CoverageRun } from './coverage.ts';
export { exportTestFile, type ExportedTest, type ExportInput } from './export.ts';
export { pathWords, configurationWords, eventWords, assumptionWords, leafPaths } from './words.ts';
export { generatePaths } from './generate.ts';
export { CoverageTracker } from './coverage-tracker.ts';
export { touchedBy, type Touched } from './coverage-touch.ts';
export { staleness, type Staleness, type StaleTest, type LastResult } from './staleness.ts';
export { coverageSources, sourcesWords, type CoverageSources, type RecordedSimulation } from './coverage-sources.ts';
export {
  untestedTransitions,
  untestedGuards,
  transitionWords,
  type UntestedTransition,
  type UntestedGuard,
} from './coverage-lists.ts';
