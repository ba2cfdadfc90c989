import { assertEvent, assign, enqueueActions, setup } from 'xstate';
import { versionDiff, type VersionDiff } from '../../src/lib/canvas-ops/version-diff.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type {
  Proposal,
  ProposalChange,
  ProposalReview,
  ProposalsFact,
  ProposalsResult,
  ProposalVerdict,
} from '../../src/lib/ports/proposals.ts';
import type { NotApplied } from '../../src/lib/proposals/merge.ts';
import { commentsMachine } from './comments.machine.ts';
import type { ViewDiffIntent } from './versions.machine.ts';
import {
  byMachine,
  listRegion,
  output,
  request,
  requestNotProvided,
  streamNotProvided,
  UNEXPECTED,
  type Host,
} from '../shared.ts';

/**
 * Proposals of one open machine, invoked by the open machine, which tells it where the
 * log's head is and what the definition is now (`proposals.headMoved`). Parallel regions:
 * - `list` reads the machine's proposals, and the proposal this machine is the draft of
 *   (if it is one), and keeps both live (`changes`), reading again after a rejoin; on a
 *   draft it tells the `editor` (the open machine) whether this person may edit it
 *   (`machine.draftChanged`: its author or an invitee, while it is not merged or closed);
 * - `step`: one step at a time: Propose a change (forks at the head the document has
 *   applied, then `created` names the draft to open), Request review, Approve, Request
 *   changes, Merge (what did not land is kept in `notApplied`), Close, invite someone to
 *   edit the draft;
 * - `view`: one proposal opened: what it changes (the machine now against the machine
 *   with the proposal landed, or as merged), with its reviews; its diff is drawn on this
 *   person's main canvas (`view.diff` to the editor, which the versions draw, as a
 *   version compared), and hiding it shows now again (`view.close`); read again when the
 *   proposal changes. While one is open, its discussion is a comments machine on its
 *   draft (`discussion`: the draft's threads, live on the draft's comment channel; members
 *   reply, resolve, reopen and start threads there, guests read), told who may comment
 *   (`proposals.canCommentChanged`).
 */

export type StepRequest =
  | { kind: 'propose'; machineId: string; title: string; definition: MachineDefinition; baseSeq: number }
  | { kind: 'requestReview'; proposal: Proposal }
  | { kind: 'review'; proposal: Proposal; verdict: ProposalVerdict }
  | { kind: 'merge'; proposal: Proposal }
  | { kind: 'close'; proposal: Proposal }
  | { kind: 'invite'; proposal: Proposal; userId: string };

export type StepAnswer = ProposalsResult<{ proposal: Proposal; notApplied?: NotApplied[] }>;
export type Loaded = ProposalsResult<{ list: Proposal[]; draftOf: Proposal | null }>;
export type Opened = ProposalsResult<{ change: ProposalChange; reviews: ProposalReview[] }>;

export type ProposalsIntent =
  | { type: 'proposals.propose'; title: string }
  | { type: 'proposals.requestReview'; id: string }
  | { type: 'proposals.review'; id: string; verdict: ProposalVerdict }
  | { type: 'proposals.merge'; id: string }
  | { type: 'proposals.close'; id: string }
  | { type: 'proposals.invite'; id: string; userId: string }
  | { type: 'proposals.open'; id: string }
  | { type: 'proposals.hide' }
  | { type: 'proposals.select'; id: string | null }
  | { type: 'proposals.retry' }
  | { type: 'proposals.dismissError' };

export type ProposalsNotice =
  | { type: 'proposals.headMoved'; version: number; definition: MachineDefinition }
  /** The room's say on who comments (members, not guests), passed to an opened proposal's discussion. */
  | { type: 'proposals.canCommentChanged'; canComment: boolean };

export type ProposalsEvent = ProposalsIntent | ProposalsNotice | ProposalsFact;

/** The open machine: told whether this person may edit the draft, and asked to show an opened proposal's diff on the canvas. */
export type ProposalsEditor = Host<
  { type: 'machine.draftChanged'; editable: boolean } | ViewDiffIntent | { type: 'view.close' }
>;

export interface ProposalsInput {
  machineId: string;
  userId: string;
  editor?: ProposalsEditor | null;
  /** Whether this person comments (a member, not a guest): in an opened proposal's discussion. */
  canComment?: boolean;
}

/** One proposal opened: what it changes, drawn as a diff, and its reviews. */
export interface ProposalView {
  proposal: Proposal;
  change: ProposalChange;
  diff: VersionDiff;
  reviews: ProposalReview[];
}

export interface ProposalsContext {
  machineId: string;
  userId: string;
  editor: ProposalsEditor | null;
  canComment: boolean;
  proposals: Proposal[];
  /** The proposal this machine is the draft of, or null. */
  draftOf: Proposal | null;
  head: number | null;
  current: MachineDefinition | null;
  openId: string | null;
  view: ProposalView | null;
  selected: string | null;
  /** A proposal just made here: its draft is the page to open. */
  created: Proposal | null;
  /** What the last merge made here did not land as written (null: none made). */
  merged: { proposal: Proposal; notApplied: NotApplied[] } | null;
  error: string | null;
}

/** Whether `p` is no older than `than` (a step's answer and a live row may arrive in either order). */
const fresher = (p: Proposal, than: Proposal | null | undefined): boolean =>
  !than || (Date.parse(p.updatedAt) || 0) >= (Date.parse(than.updatedAt) || 0);

const upsert = (list: Proposal[], p: Proposal): Proposal[] =>
  list.some((x) => x.id === p.id)
    ? list.map((x) => (x.id === p.id && fresher(p, x) ? p : x))
    : [p, ...list].sort((a, b) => b.createdAt.localeCompare(a.createdAt));

/** A proposal this machine knows (listed, or the one it is the draft of). */
const findProposal = (context: ProposalsContext, id: string | null): Proposal | undefined =>
  [...context.proposals, ...(context.draftOf ? [context.draftOf] : [])].find((p) => p.id === id);

/** Whether `userId` may edit the draft of `p`: its author or an invitee, until it is merged or closed. */
export const mayEditDraft = (p: Proposal, userId: string): boolean =>
  (p.author === userId || p.collaborators.includes(userId)) && p.status !== 'merged' && p.status !== 'closed';

export const proposalsMachine = setup({
  types: {
    input: {} as ProposalsInput,
    context: {} as ProposalsContext,
    events: {} as ProposalsEvent,
    children: {} as {
      changes: 'changes';
      loadProposals: 'loadProposals';
      step: 'step';
      openProposal: 'openProposal';
      discussion: 'discussion';
    },
    tags: {} as 'loading' | 'busy' | 'reading' | 'showing' | 'failed',
  },
  actors: {
    changes: streamNotProvided<ProposalsFact, { machineId: string }>('proposals', 'changes'),
    loadProposals: requestNotProvided<Loaded, { machineId: string }>('proposals', 'loadProposals'),
    step: requestNotProvided<StepAnswer, StepRequest>('proposals', 'step'),
    openProposal: requestNotProvided<Opened, { proposal: Proposal }>('proposals', 'openProposal'),
    /** An opened proposal's discussion: the comments machine on its draft (its actors provided with the comments port). */
    discussion: commentsMachine,
  },
  guards: {
    refused: (_, answer: ProposalsResult<unknown>) => !answer.ok,
    headChanged: ({ context, event }) =>
      event.type === 'proposals.headMoved' && (event.version !== context.head || event.definition !== context.current),
    canPropose: ({ context, event }) =>
      event.type === 'proposals.propose' && event.title.trim() !== '' && context.current !== null,
    known: ({ context, event }) =>
      'id' in event && (context.proposals.some((p) => p.id === event.id) || context.draftOf?.id === event.id),
    openChanged: ({ context, event }) => event.type === 'proposals.changed' && event.proposal.id === context.openId,
  },
  actions: {
    setHead: assign(({ event }) => {
      assertEvent(event, 'proposals.headMoved');
      return { head: event.version, current: event.definition };
    }),
    setLoaded: assign((_, answer: Loaded) => (answer.ok ? { ...answer.value, proposals: answer.value.list } : {})),
    tellDraft: enqueueActions(({ context, enqueue }) => {
      const p = context.draftOf;
      if (p && context.editor)
        enqueue.sendTo(context.editor, { type: 'machine.draftChanged', editable: mayEditDraft(p, context.userId) });
    }),
    changed: assign(({ context, event }) => {
      assertEvent(event, 'proposals.changed');
      const p = event.proposal;
      return {
        proposals: p.machineId === context.machineId ? upsert(context.proposals, p) : context.proposals,
        draftOf: context.draftOf?.id === p.id && fresher(p, context.draftOf) ? p : context.draftOf,
      };
    }),
    stepped: assign(({ context }, answer: StepAnswer) => {
      if (!answer.ok) return {};
      const p = answer.value.proposal;
      return {
        proposals: p.machineId === context.machineId ? upsert(context.proposals, p) : context.proposals,
        draftOf: context.draftOf?.id === p.id && fresher(p, context.draftOf) ? p : context.draftOf,
        // Only Propose a change answers a new draft (the row may have arrived live before this
        // answer); an invite answers a draft too, but it is taken on the draft's own page.
        created: p.status === 'draft' && context.draftOf === null ? p : context.created,
        merged: answer.value.notApplied ? { proposal: p, notApplied: answer.value.notApplied } : context.merged,
        error: null,
      };
    }),
    openIt: assign(({ event }) => {
      assertEvent(event, 'proposals.open');
      return { openId: event.id, selected: null, error: null };
    }),
    showView: assign(({ context }, answer: Opened) => {
      const proposal = findProposal(context, context.openId);
      if (!answer.ok || !proposal) return {};
      const { change, reviews } = answer.value;
      return { view: { proposal, change, reviews, diff: versionDiff(change.before, change.after) } };
    }),
    /** The opened proposal's diff against the machine now is drawn on this person's main canvas. */
    drawOnCanvas: enqueueActions(({ context, enqueue }) => {
      if (!context.view || !context.editor) return;
      const { change, proposal } = context.view;
      enqueue.sendTo(context.editor, {
        type: 'view.diff',
        before: change.before,
        after: change.after,
        label: `${proposal.title} → now`,
      });
    }),
    /** Hidden here: the canvas shows now again. */
    clearCanvas: enqueueActions(({ context, enqueue }) => {
      if (context.editor) enqueue.sendTo(context.editor, { type: 'view.close' });
    }),
    setCanComment: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'proposals.canCommentChanged');
      enqueue.assign({ canComment: event.canComment });
      if (context.openId !== null)
        enqueue.sendTo('discussion', { type: 'comments.canCommentChanged', canComment: event.canComment });
    }),
    select: assign(({ event }) => {
      assertEvent(event, 'proposals.select');
      return { selected: event.id };
    }),
    hideView: assign({ openId: null, view: null, selected: null }),
    showRefusal: assign((_, answer: ProposalsResult<unknown>) => ({ error: answer.ok ? null : answer.error.message })),
    showUnexpected: assign({ error: UNEXPECTED }),
    showTitleProblem: assign({ error: 'A proposal needs a title.' }),
    clearError: assign({ error: null }),
  },
}).createMachine({
  id: 'proposals',
  context: ({ input }) => ({
    machineId: input.machineId,
    userId: input.userId,
    editor: input.editor ?? null,
    canComment: input.canComment ?? false,
    proposals: [],
    draftOf: null,
    head: null,
    current: null,
    openId: null,
    view: null,
    selected: null,
    created: null,
    merged: null,
    error: null,
  }),
  invoke: { id: 'changes', src: 'changes', input: ({ context }) => ({ machineId: context.machineId }) },
  on: {
    'proposals.headMoved': { guard: 'headChanged', actions: 'setHead' },
    'proposals.canCommentChanged': { actions: 'setCanComment' },
    'proposals.changed': { actions: ['changed', 'tellDraft'] },
    'proposals.dismissError': { actions: 'clearError' },
  },
  type: 'parallel',
  states: {
    list: listRegion({
      read: {
        id: 'loadProposals',
        src: 'loadProposals',
        input: byMachine,
        ...request({
          refused: { target: 'failed', actions: { type: 'showRefusal', params: output } },
          done: { target: 'live', actions: [{ type: 'setLoaded', params: output }, 'tellDraft'] },
          threw: { target: 'failed', actions: 'showUnexpected' },
        }),
      },
      // Back after a drop: the table has what was missed.
      again: { 'proposals.subscribed': 'loading' },
      states: { failed: { tags: ['failed'], on: { 'proposals.retry': 'loading', 'proposals.subscribed': 'loading' } } },
    }),
    step: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'proposals.propose': [{ guard: 'canPropose', target: 'working' }, { actions: 'showTitleProblem' }],
            'proposals.requestReview': { guard: 'known', target: 'working' },
            'proposals.review': { guard: 'known', target: 'working' },
            'proposals.merge': { guard: 'known', target: 'working' },
            'proposals.close': { guard: 'known', target: 'working' },
            'proposals.invite': { guard: 'known', target: 'working' },
          },
        },
        working: {
          tags: ['busy'],
          invoke: {
            id: 'step',
            src: 'step',
            input: ({ context, event }): StepRequest => {
              if (event.type === 'proposals.propose')
                return {
                  kind: 'propose',
                  machineId: context.machineId,
                  title: event.title.trim(),
                  definition: context.current as MachineDefinition,
                  baseSeq: context.head ?? 0,
                };
              assertEvent(event, [
                'proposals.requestReview',
                'proposals.review',
                'proposals.merge',
                'proposals.close',
                'proposals.invite',
              ]);
              const proposal = findProposal(context, event.id) as Proposal;
              if (event.type === 'proposals.review') return { kind: 'review', proposal, verdict: event.verdict };
              if (event.type === 'proposals.requestReview') return { kind: 'requestReview', proposal };
              if (event.type === 'proposals.invite') return { kind: 'invite', proposal, userId: event.userId };
              return { kind: event.type === 'proposals.merge' ? 'merge' : 'close', proposal };
            },
            ...request({
              refused: { target: 'idle', actions: { type: 'showRefusal', params: output } },
              done: { target: 'idle', actions: [{ type: 'stepped', params: output }, 'tellDraft'] },
              threw: { target: 'idle', actions: 'showUnexpected' },
            }),
          },
        },
      },
    },
    view: {
      initial: 'closed',
      on: { 'proposals.open': { guard: 'known', target: '.opened', reenter: true, actions: 'openIt' } },
      states: {
        closed: {},
        opened: {
          initial: 'reading',
          // Its discussion: the draft's threads, live, for as long as it is open (whatever is read again).
          invoke: {
            id: 'discussion',
            src: 'discussion',
            input: ({ context }) => ({
              machineId: (findProposal(context, context.openId) as Proposal).draftId,
              userId: context.userId,
              canComment: context.canComment,
            }),
          },
          on: {
            // A transition here takes the event from the root's: it keeps the row as the root would.
            'proposals.changed': { guard: 'openChanged', target: '.reading', actions: ['changed', 'tellDraft'] },
          },
          states: {
            reading: {
              tags: ['reading'],
              invoke: {
                id: 'openProposal',
                src: 'openProposal',
                input: ({ context }) => ({ proposal: findProposal(context, context.openId) as Proposal }),
                ...request({
                  refused: {
                    target: '#proposals.view.closed',
                    actions: [{ type: 'showRefusal', params: output }, 'hideView'],
                  },
                  done: { target: 'shown', actions: { type: 'showView', params: output } },
                  threw: { target: '#proposals.view.closed', actions: ['showUnexpected', 'hideView'] },
                }),
              },
            },
            shown: {
              tags: ['showing'],
              entry: 'drawOnCanvas',
              on: {
                'proposals.select': { actions: 'select' },
                'proposals.hide': { target: '#proposals.view.closed', actions: ['hideView', 'clearCanvas'] },
              },
            },
          },
        },
      },
    },
  },
});

export type ProposalsMachine = typeof proposalsMachine;
