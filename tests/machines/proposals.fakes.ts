import { Subject } from 'rxjs';
import { createActor, fromCallback, fromEventObservable, type AnyEventObject } from 'xstate';
import {
  proposalsMachine,
  type Loaded,
  type Opened,
  type ProposalsEditor,
  type StepAnswer,
  type StepRequest,
} from '../../machines/open-machine/proposals.machine.ts';
import type { Proposal, ProposalsFact, ProposalsResult, ProposalStatus } from '../../src/lib/ports/proposals.ts';
import { heldRequests } from './held-requests.ts';
import { heldComments } from './comments.fakes.ts';

export { door, idleId, renamed, settle } from './versions.fakes.ts';
import { door, renamed, settle } from './versions.fakes.ts';

/**
 * A fake proposals port: reads and steps held until the test settles them, facts pushed
 * on a subject, a view layout and an editor (the open machine) that record what they
 * were told.
 */

export type ProposalsRequest = 'loadProposals' | 'step' | 'openProposal';

export const ok = <T>(value: T): ProposalsResult<T> => ({ ok: true, value });
export const refused = (code: string, message: string): ProposalsResult<never> => ({
  ok: false,
  error: { code, message },
});

export const proposal = (id: string, status: ProposalStatus, over: Partial<Proposal> = {}): Proposal => ({
  id,
  machineId: 'm-1',
  draftId: `draft-${id}`,
  title: `Proposal ${id}`,
  author: 'u-ada',
  collaborators: [],
  baseSeq: 1,
  status,
  mergedBy: null,
  mergedAt: null,
  mergedFirstSeq: null,
  mergedLastSeq: null,
  createdAt: new Date(Date.UTC(2026, 10, 27, 12, 0, 0)).toISOString(),
  updatedAt: new Date(Date.UTC(2026, 10, 27, 12, 0, 0)).toISOString(),
  ...over,
});

export const loaded = (list: Proposal[], draftOf: Proposal | null = null): Loaded => ok({ list, draftOf });
export const stepped = (p: Proposal): StepAnswer => ok({ proposal: p });
export const opened: Opened = ok({ change: { before: door, after: renamed, notApplied: [] }, reviews: [] });

export function start(input: { machineId?: string; userId?: string; canComment?: boolean } = {}) {
  const facts = new Subject<ProposalsFact>();
  // An opened proposal's discussion: the comments machine, its list and requests held too.
  const talk = heldComments();
  const held = heldRequests<ProposalsRequest>(settle);
  const edited: AnyEventObject[] = [];
  const logic = proposalsMachine.provide({
    actors: {
      changes: fromEventObservable<ProposalsFact, { machineId: string }>(() => facts.asObservable()),
      loadProposals: held.request<Loaded, { machineId: string }>('loadProposals'),
      step: held.request<StepAnswer, StepRequest>('step'),
      openProposal: held.request<Opened, { proposal: Proposal }>('openProposal'),
      discussion: talk.logic,
    },
  });
  const editor = createActor(
    fromCallback<AnyEventObject>(({ receive }) => receive((e) => edited.push(e))),
  ).start() as unknown as ProposalsEditor;
  const actor = createActor(logic, {
    input: {
      machineId: input.machineId ?? 'm-1',
      userId: input.userId ?? 'u-bob',
      editor,
      canComment: input.canComment ?? true,
    },
  }).start();
  return { actor, held, facts, edited, talk };
}
