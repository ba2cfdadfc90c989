/** Diagram layout: definition -> ELK input -> positioned nodes and edges (pure). */
export * from './types.ts';
export { buildElkGraph, GRAPH_OPTIONS, WRAPPER_ID } from './elk-input.ts';
export { routeOf, portId } from './segments.ts';
export { mapElkResult } from './elk-output.ts';
export { layoutDefinition, hintsFrom, type ElkLike } from './run.ts';
export { LayoutCache } from './cache.ts';
export { layoutForPane, fitScale, mayChooseDirection, mismatched } from './direction.ts';
export { transitionLabel, triggerText, stateTitle, estimateText } from './labels.ts';
export { GEOMETRY, detailLines, leafSize, tagLine, COLLAPSED_CAPTION } from './sizes.ts';
export { autoCollapsed, collapseView, hiddenBy, OPEN_BUDGET, type CollapsedView } from './collapse.ts';
