/** Shared simulation: a stored definition run as a real XState actor, with no code from it. */
export * from './types.ts';
export { buildSimMachine, definitionNames, NAMED_DELAY_MS, type DefinitionNames } from './build.ts';
export { StepClock } from './clock.ts';
export { MemoWalker } from './memo.ts';
export { Simulator, activePathsOf, isSendableType } from './simulator.ts';
export { eventOptions, eventTypesOf, type EventOption } from './events.ts';
export { emptyLog, mergeEntries, readyEntries, hasGap, type KnownLog } from './log.ts';
export { replay, replayToState, rerunOnDefinition, type Trace, type Rerun, type RerunMark } from './replay.ts';
export { traceOf, optionsAtEnd } from './trace.ts';
export { sameJson, parsePayload } from './json.ts';
export { enabledTransitions, takenTransitions, sendableType } from './diagram.ts';
