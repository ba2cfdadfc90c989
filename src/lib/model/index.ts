/** Chartroom's statechart model: types, XState import/export, validation and operations. */
export * from './types.ts';
export * from './op-types.ts';
export { randomIds, counterIds } from './ids.ts';
export { readXState, importXState, ImportError, type ImportOptions, type ImportResult } from './import.ts';
export { exportXState, targetString } from './export.ts';
export { validateDefinition } from './validate.ts';
export { checkXStateText, formatIssue, type CheckResult } from './check.ts';
export { parseJsonText, type ParseResult, type Span } from './json-text.ts';
export { reachableStates } from './reachability.ts';
export { transitionConfigPath } from './config-paths.ts';
export * from './tree.ts';
export { applyOp, applyOps, canApply, replayOps } from './apply.ts';
export { invert, invertRun, applyWithInverse } from './invert.ts';
export { fromMachine, machineConfigJson, type MachineLike } from './from-machine.ts';
export { integrityProblems } from './integrity.ts';
export {
  uniqueKey,
  nextOrder,
  addChildState,
  addSiblingState,
  addTransition,
  type NewStateOptions,
} from './recipes.ts';
export { opsFromConfig } from './reconcile.ts';
