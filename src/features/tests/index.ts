export { TestsPanel } from './TestsPanel.tsx';
