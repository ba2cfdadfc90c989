import { useSelector } from '@xstate/react';
import { useContext, useMemo } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { ProposalView, proposalsMachine } from '../../../machines/open-machine/proposals.machine.ts';
import type { Proposal, ProposalStatus } from '../../lib/ports/proposals.ts';
import type { NotApplied } from '../../lib/proposals/merge.ts';
import type { TimelineEntry } from '../../lib/timeline/index.ts';
import { OpenMachineRefContext } from '../canvas/open-machine-context.ts';

/** The proposals actor (a child of the open machine) and the slices its views read. */
export type ProposalsActor = ActorRefFrom<typeof proposalsMachine>;
type Snapshot = SnapshotFrom<typeof proposalsMachine>;

/** The open machine's proposals child, or null where no machine is open with one. */
export function useProposalsRef(): ProposalsActor | null {
  const open = useContext(OpenMachineRefContext);
  return useSelector(open ?? undefined, (s) => s?.children.proposals ?? null);
}

export const useProposals = (a: ProposalsActor): readonly Proposal[] => useSelector(a, (s) => s.context.proposals);
export const useDraftOf = (a: ProposalsActor | null): Proposal | null =>
  useSelector(a ?? undefined, (s) => s?.context.draftOf ?? null);
export const useProposalsError = (a: ProposalsActor | null): string | null =>
  useSelector(a ?? undefined, (s) => s?.context.error ?? null);
export const useProposalView = (a: ProposalsActor): ProposalView | null => useSelector(a, (s) => s.context.view);
/** An opened proposal's discussion: the comments machine on its draft, or null when none is open. */
export const useDiscussionRef = (a: ProposalsActor) => useSelector(a, (s) => s.children.discussion ?? null);
export const useSelectedProposalChange = (a: ProposalsActor): string | null =>
  useSelector(a, (s) => s.context.selected);
export const useCreatedProposal = (a: ProposalsActor | null): Proposal | null =>
  useSelector(a ?? undefined, (s) => s?.context.created ?? null);
export const useLastMerge = (a: ProposalsActor): { proposal: Proposal; notApplied: NotApplied[] } | null =>
  useSelector(a, (s) => s.context.merged);
const tag = (name: Parameters<Snapshot['hasTag']>[0]) => (a: ProposalsActor | null) =>
  useSelector(a ?? undefined, (s) => s?.hasTag(name) ?? false);
export const useProposalsBusy = tag('busy');
export const useProposalsLoading = tag('loading');
export const useReadingProposal = tag('reading');

export const STATUS_TEXT: Record<ProposalStatus, string> = {
  draft: 'Draft',
  in_review: 'In review',
  changes_requested: 'Changes requested',
  approved: 'Approved',
  merged: 'Merged',
  closed: 'Closed',
};

const NO_PROPOSALS: readonly Proposal[] = [];

/** The timeline's merge marks: each edit entry that is a proposal's merge, with its title, by entry key. */
export function useMergeMarks(entries: readonly TimelineEntry[]): ReadonlyMap<string, string> {
  const actor = useProposalsRef();
  const proposals = useSelector(actor ?? undefined, (s) => s?.context.proposals ?? NO_PROPOSALS);
  return useMemo(() => {
    const marks = new Map<string, string>();
    for (const p of proposals) {
      if (p.mergedFirstSeq === null) continue;
      const entry = entries.find((e) => e.kind === 'edit' && e.firstSeq === p.mergedFirstSeq);
      if (entry) marks.set(entry.key, p.title);
    }
    return marks;
  }, [proposals, entries]);
}
