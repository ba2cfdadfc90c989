export { ProposalsPanel, ProposalsSlot } from './ProposalsPanel.tsx';
export { ProposalBanner } from './ProposalBanner.tsx';
export { ProposeButton } from './ProposeButton.tsx';
export { useDraftOf, useMergeMarks, useProposalsRef } from './proposals-selectors.ts';
