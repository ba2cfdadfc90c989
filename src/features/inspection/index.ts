// Live inspection's public face for the composition root.
export { InspectionPage } from './InspectionPage.tsx';
export { InspectionContext } from './inspection-context.ts';
