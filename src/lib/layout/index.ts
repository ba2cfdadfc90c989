/** Diagram layout: definition -> ELK input -> positioned nodes and edges (pure). */
export * from './types.ts';
export { buildElkGraph, WRAPPER_ID } from './elk-input.ts';
export { mapElkResult } from './elk-output.ts';
export { layoutDefinition, hintsFrom, type ElkLike } from './run.ts';
export { transitionLabel, triggerText, stateTitle, estimateText } from './labels.ts';
export { GEOMETRY, detailLines, leafSize } from './sizes.ts';
