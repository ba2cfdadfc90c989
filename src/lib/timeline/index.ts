export * from './types.ts';
export { summarizeOps, batchesOf, foldOps } from './summary.ts';
export { BARE_DEFINITION, emptyHistory, appendOps, definitionAt, definitionAtSeq, type History } from './history.ts';
export {
  simulationEntry,
  eventEntry,
  joinedEntry,
  insertEntries,
  mergeSorted,
  filterEntries,
  peopleIn,
  windowOf,
  NO_FILTER,
  type TimelineFilter,
} from './entries.ts';
