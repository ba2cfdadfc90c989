export { VersionsPanel, VersionsSlot } from './VersionsPanel.tsx';
