/** Shared simulation views: the panel and the diagram's active-state paths. */
export { SimulationPanel } from './SimulationPanel.tsx';
export { useSimActivePaths, type SimulationActor } from './simulation-selectors.ts';
