export { TestsPanel } from './TestsPanel.tsx';
export { TestsLogicContext } from './tests-context.ts';
