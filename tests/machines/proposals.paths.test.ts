import type { SnapshotFrom } from 'xstate';
import { proposalsMachine, type ProposalsEvent } from '../../machines/open-machine/proposals.machine.ts';
import type { ProposalsFact } from '../../src/lib/ports/proposals.ts';
import { describeMachinePaths, settleRequest, type MachinePaths } from './machine-paths.ts';
import { door, idleId, loaded, opened, proposal, refused, settle, start, stepped } from './proposals.fakes.ts';

/**
 * Path tests for the proposals machine: every state node reached, every shortest path and
 * every edge replayed on the running machine with the fake port (requests settled, facts
 * pushed, intents and the open machine's notice sent). One proposal, one head, at most one
 * step answered per kind, so the graph is finite.
 */

type Snapshot = SnapshotFrom<typeof proposalsMachine>;
type GraphEvent = ProposalsEvent | { type: string; output?: unknown; error?: unknown };

const P = proposal('p1', 'in_review');
const FACTS = new Set(['proposals.changed', 'proposals.subscribed', 'proposals.lost']);

const events: GraphEvent[] = [
  { type: 'xstate.done.actor.loadProposals', output: loaded([P]) },
  { type: 'xstate.done.actor.loadProposals', output: refused('network', "Couldn't list the proposals.") },
  { type: 'xstate.error.actor.loadProposals', error: new Error('loadProposals crashed') },
  { type: 'xstate.done.actor.step', output: stepped({ ...P, status: 'approved' }) },
  { type: 'xstate.done.actor.step', output: refused('42501', "Couldn't merge: only owners and editors merge.") },
  { type: 'xstate.error.actor.step', error: new Error('step crashed') },
  { type: 'xstate.done.actor.openProposal', output: opened },
  { type: 'xstate.done.actor.openProposal', output: refused('network', "Couldn't read what it changes.") },
  { type: 'xstate.error.actor.openProposal', error: new Error('openProposal crashed') },
  { type: 'proposals.headMoved', version: 2, definition: door },
  { type: 'proposals.propose', title: 'Retry twice' },
  { type: 'proposals.propose', title: ' ' },
  { type: 'proposals.review', id: 'p1', verdict: 'approved' },
  { type: 'proposals.merge', id: 'p1' },
  { type: 'proposals.close', id: 'p1' },
  { type: 'proposals.invite', id: 'p1', userId: 'u-cy' },
  { type: 'proposals.open', id: 'p1' },
  { type: 'proposals.select', id: idleId },
  { type: 'proposals.hide' },
  { type: 'proposals.retry' },
  { type: 'proposals.dismissError' },
  { type: 'proposals.changed', proposal: { ...P, status: 'merged' } },
  { type: 'proposals.subscribed' },
];

function key(snapshot: Snapshot): string {
  const { proposals, head, openId, view, selected, error, created } = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    proposals: proposals.map((p) => `${p.id}:${p.status}`),
    head,
    openId,
    view: view?.proposal.id ?? null,
    selected,
    error,
    created: created?.id ?? null,
  });
}

const traversal = {
  events: events as ProposalsEvent[],
  filterEvents: (snapshot: Snapshot, event: ProposalsEvent) => {
    if (!snapshot.can(event)) return false;
    const type = event.type as string;
    const { proposals, error, head, openId, selected } = snapshot.context;
    const quiet = snapshot.matches({ list: 'live', step: 'idle', view: 'closed' });
    if (type === 'proposals.changed' || type === 'proposals.subscribed')
      return quiet && error === null && proposals.every((p) => p.status !== 'merged');
    if (type === 'proposals.headMoved') return head === null && error === null;
    if (
      type === 'proposals.propose' ||
      type === 'proposals.review' ||
      type === 'proposals.merge' ||
      type === 'proposals.close' ||
      type === 'proposals.invite'
    )
      return openId === null && error === null;
    if (type === 'proposals.open') return snapshot.matches({ step: 'idle' }) && error === null;
    if (type === 'proposals.select') return selected === null;
    return true;
  },
  serializeState: key,
  serializeEvent: (event: ProposalsEvent) => JSON.stringify(event),
  input: { machineId: 'm-1', userId: 'u-bob' },
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = start();
  for (const event of steps) {
    if (await settleRequest(fake.held, event)) continue;
    if (FACTS.has(event.type)) fake.facts.next(event as ProposalsFact);
    else fake.actor.send(event as ProposalsEvent);
    await settle();
  }
  return { getSnapshot: () => fake.actor.getSnapshot(), stop: () => fake.actor.stop() };
}

const machine = proposalsMachine as unknown as MachinePaths<
  Snapshot,
  ProposalsEvent,
  { machineId: string; userId: string }
>['machine'];

describeMachinePaths('proposals machine', {
  machine,
  traversal,
  replay,
  observe: key,
  minEdges: 30,
  timeout: 240_000,
});
