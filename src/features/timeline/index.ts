/** The machine's timeline: everything that happened to it, filterable, with time travel. */
export { TimelinePanel } from './TimelinePanel.tsx';
export type { TimelineActor } from './timeline-selectors.ts';
