import { fromEventObservable, fromPromise } from 'xstate';
import {
  proposalsMachine,
  type Loaded,
  type Opened,
  type StepAnswer,
  type StepRequest,
} from '../../machines/open-machine/proposals.machine.ts';
import type { Proposal, ProposalsPort, ProposalsResult } from '../lib/ports/proposals.ts';
import type { CommentsPort } from '../lib/ports/comments.ts';
import { commentsLogic } from './comments.ts';

/** A step's answer as the machine reads it: the proposal after it (and, for a merge, what did not land). */
async function takeStep(port: ProposalsPort, r: StepRequest): Promise<StepAnswer> {
  const only = (answer: ProposalsResult<Proposal>): StepAnswer =>
    answer.ok ? { ok: true, value: { proposal: answer.value } } : answer;
  switch (r.kind) {
    case 'propose':
      return only(await port.propose(r));
    case 'requestReview':
      return only(await port.requestReview(r.proposal.id));
    case 'review':
      return only(await port.review(r.proposal.id, r.verdict));
    case 'close':
      return only(await port.close(r.proposal.id));
    case 'invite':
      return only(await port.invite(r.proposal.id, r.userId));
    case 'merge':
      return port.merge(r.proposal);
  }
}

/**
 * The proposals machine over the proposals port (an opened proposal's diff is drawn by the
 * canvas), and its discussion (the comments machine on the draft) over the comments port.
 */
export function proposalsLogic(port: ProposalsPort, comments: CommentsPort) {
  return proposalsMachine.provide({
    actors: {
      changes: fromEventObservable(({ input }: { input: { machineId: string } }) => port.changes$(input.machineId)),
      loadProposals: fromPromise(async ({ input }: { input: { machineId: string } }): Promise<Loaded> => {
        const [list, draftOf] = await Promise.all([port.list(input.machineId), port.ofDraft(input.machineId)]);
        if (!list.ok) return list;
        if (!draftOf.ok) return draftOf;
        return { ok: true, value: { list: list.value, draftOf: draftOf.value } };
      }),
      step: fromPromise(({ input }: { input: StepRequest }) => takeStep(port, input)),
      openProposal: fromPromise(async ({ input }: { input: { proposal: Proposal } }): Promise<Opened> => {
        const [change, reviews] = await Promise.all([port.change(input.proposal), port.reviews(input.proposal.id)]);
        if (!change.ok) return change;
        if (!reviews.ok) return reviews;
        return { ok: true, value: { change: change.value, reviews: reviews.value } };
      }),
      discussion: commentsLogic(comments),
    },
  });
}
export type ProposalsLogic = ReturnType<typeof proposalsLogic>;
