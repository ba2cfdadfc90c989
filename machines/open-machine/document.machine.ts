import { emptyHistory } from '../../src/lib/collab/history.ts';
import type { InflightBatch } from '../../src/lib/collab/types.ts';
import type { Op } from '../../src/lib/model/op-types.ts';
import type { CommitRequest } from '../../src/lib/ports/document.ts';
import { output, request, requestValue, value } from '../shared.ts';
import { commitAnswer, documentSetup, savedQueue } from './document.setup.ts';

export * from './document.setup.ts';

/**
 * One open machine's document: this person's edits applied at once, queued and appended
 * in batches to the machine's log, which the server orders (an append is never refused
 * for being behind); everyone's ops arrive from the live stream in seq order and this
 * person's queue is rebased on them; others' batches sent ahead (`ops.seen`) show at once
 * until their ops arrive, and are rolled back if they never do (`seenTimeout`); a gap in the seq numbers triggers a resync from the
 * log; offline, edits keep queueing (stored through `queueStore`, so a reload loses
 * nothing) and are appended when the connection is back. What each step does to the
 * document is pure (src/lib/collab/); this chart decides when each step runs.
 *
 * Sync tags: every state under `ready` carries exactly one of `synced` (the server has
 * acknowledged every edit), `saving`, `syncing` (reading the log), `unsaved` (the server
 * refused an edit) or `offline`, so a label read from the tags never says "Saved" while
 * edits wait.
 */

/** Read the log after this document's version and apply it (which rebases the queue); a failure waits offline. */
const readLogSinceVersion = documentSetup.createStateConfig({
  invoke: {
    id: 'fetchOps',
    src: 'fetchOps',
    input: ({ context }) => ({ machineId: context.machineId, after: context.doc?.version ?? 0 }),
    ...request({
      refused: { target: '#document.ready.offline', actions: { type: 'showFetchFailure', params: output } },
      done: { target: 'idle', actions: [{ type: 'applyReceived', params: value }, 'saveQueue'] },
      threw: { target: '#document.ready.offline', actions: 'showUnexpected' },
    }),
  },
});

export const documentMachine = documentSetup.createMachine({
  id: 'document',
  context: ({ input }) => ({
    ...input,
    doc: null,
    history: emptyHistory<Op>(),
    dropped: [],
    error: null,
    refused: false,
    sending: null,
  }),
  // The store lives as long as the document: every change to the queue is written through.
  invoke: { id: 'queueStore', src: 'queueStore', input: ({ context }) => ({ machineId: context.machineId }) },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      initial: 'restoring',
      states: {
        // Unsent edits from before a reload come first: they carry their own base.
        restoring: {
          invoke: {
            id: 'loadQueue',
            src: 'loadQueue',
            input: ({ context }) => ({ machineId: context.machineId }),
            ...requestValue({
              done: [
                {
                  guard: { type: 'hasSaved', params: output },
                  target: '#document.ready',
                  actions: { type: 'restoreQueue', params: savedQueue },
                },
                { target: 'fetching' },
              ],
              threw: { target: 'fetching' },
            }),
          },
        },
        fetching: {
          invoke: {
            id: 'loadMachine',
            src: 'loadMachine',
            input: ({ context }) => ({ machineId: context.machineId }),
            ...request({
              refused: { target: 'failed', actions: { type: 'showLoadFailure', params: output } },
              done: { target: '#document.ready', actions: { type: 'startDoc', params: value } },
              threw: { target: 'failed', actions: 'showUnexpected' },
            }),
          },
        },
        failed: {
          tags: ['failed'],
          on: { 'doc.retry': { target: 'fetching', actions: 'clearError' } },
        },
      },
    },
    ready: {
      tags: ['ready'],
      invoke: { id: 'opEvents', src: 'opEvents', input: ({ context }) => ({ machineId: context.machineId }) },
      on: {
        'doc.edit': { actions: ['applyEdit', 'saveQueue'] },
        'doc.undo': { guard: 'canUndo', actions: ['applyUndo', 'saveQueue'] },
        'doc.redo': { guard: 'canRedo', actions: ['applyUndo', 'saveQueue'] },
        'ops.received': [
          {
            guard: 'revealsGap',
            target: '.online.resyncing',
            actions: [{ type: 'applyReceived', params: ({ event }) => event.ops }, 'saveQueue'],
          },
          { actions: [{ type: 'applyReceived', params: ({ event }) => event.ops }, 'saveQueue'] },
        ],
        'ops.seen': {
          actions: [
            { type: 'showSeen', params: ({ event }) => event.batch },
            { type: 'expireSeen', params: ({ event }) => event.batch },
          ],
        },
        // Most batches are confirmed long before: then the time-out is no change at all (no new snapshot to route).
        'seen.expired': { guard: 'stillShown', actions: 'forgetSeen' },
      },
      initial: 'online',
      states: {
        online: {
          initial: 'resyncing',
          on: { 'connection.lost': 'offline' },
          states: {
            idle: {
              // An edit goes out at once, before the page repaints for it; edits made while a
              // batch is on the wire queue behind it and leave together as the next batch.
              always: { guard: 'canSend', target: 'committing' },
              after: { quietResync: 'resyncing' },
              on: { 'ops.subscribed': 'resyncing' },
              initial: 'saved',
              states: {
                // The server acknowledged every edit: the only state that says "Saved".
                saved: {
                  tags: ['synced'],
                  always: [
                    { guard: 'lastRefused', target: 'notSaved' },
                    { guard: 'hasUnsent', target: 'waiting' },
                  ],
                },
                // The server refused an edit (shown in words); the next acknowledged append clears it.
                notSaved: { tags: ['unsaved'] },
                // Acknowledged, but the log before our batch has not reached us yet.
                waiting: { tags: ['saving'] },
              },
            },
            committing: {
              tags: ['saving'],
              entry: ['takeBatch', 'saveQueue'],
              invoke: {
                id: 'commitOps',
                src: 'commitOps',
                input: ({ context }): CommitRequest => {
                  const batch = context.doc?.inflight as InflightBatch<Op>;
                  return {
                    machineId: context.machineId,
                    clientId: context.clientId,
                    batchId: batch.batchId,
                    ops: batch.ops,
                  };
                },
                // Reported as a fact; `ops.committed` (or a refusal) ends it.
                ...requestValue({
                  done: { actions: { type: 'reportCommit', params: commitAnswer } },
                  threw: { target: '#document.ready.offline', actions: 'showUnexpected' },
                }),
              },
              on: {
                'ops.committed': [
                  { guard: 'committedWithGap', target: 'resyncing', actions: ['applyCommitted', 'saveQueue'] },
                  { target: 'idle', actions: ['applyCommitted', 'saveQueue', 'clearError'] },
                ],
                'commit.refused': { target: 'resyncing', actions: ['discardUnsent', 'saveQueue'] },
                'commit.failed': { target: '#document.ready.offline', actions: 'showCommitFailure' },
              },
            },
            // A gap, a (re)subscribed stream or a quiet spell: read the log from our version.
            resyncing: { tags: ['syncing'], ...readLogSinceVersion },
          },
        },
        // Edits keep applying and queueing; the queue is stored, the server tried again later.
        offline: {
          tags: ['offline'],
          after: { retryDelay: 'online' },
          on: {
            'connection.restored': 'online',
            'ops.subscribed': 'online',
          },
        },
      },
    },
  },
});
