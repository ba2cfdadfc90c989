import { fromCallback, fromEventObservable, fromPromise } from 'xstate';
import {
  canvasPresenceMachine,
  type PresenceCommand,
  type PresenceInput,
} from '../../machines/open-machine/canvas-presence.machine.ts';
import { documentMachine, type QueueCommand } from '../../machines/open-machine/document.machine.ts';
import { openMachineMachine } from '../../machines/open-machine/open-machine.machine.ts';
import { layoutLogic, type LayoutEngine } from './layout.ts';
import type { CanvasPresencePort, PresenceFact } from '../lib/ports/canvas-presence.ts';
import type { CommitRequest, DocumentPort, QueueStore } from '../lib/ports/document.ts';
import type { SimulationPort } from '../lib/ports/simulation.ts';
import { simulationLogic } from './simulation.ts';
import type { TimelinePort } from '../lib/ports/timeline.ts';
import type { TestPlaybackLogic } from './test-playback.ts';
import type { TestsLogic } from './tests.ts';
import type { CommentsLogic } from './comments.ts';
import { timelineLogic } from './timeline.ts';
import type { VersionsLogic } from './versions.ts';
import type { ProposalsLogic } from './proposals.ts';

/** The document machine's actors over the document port and a queue store. */
export function documentActors(port: DocumentPort, store: QueueStore) {
  return {
    loadQueue: fromPromise(({ input }: { input: { machineId: string } }) => store.load(input.machineId)),
    loadMachine: fromPromise(({ input }: { input: { machineId: string } }) => port.loadMachine(input.machineId)),
    commitOps: fromPromise(({ input }: { input: CommitRequest }) => port.commitOps(input)),
    fetchOps: fromPromise(({ input }: { input: { machineId: string; after: number } }) =>
      port.opsSince(input.machineId, input.after),
    ),
    opEvents: fromEventObservable(({ input }: { input: { machineId: string } }) => port.opEvents$(input.machineId)),
    queueStore: fromCallback<QueueCommand, { machineId: string }>(({ receive, input }) => {
      receive((command) => store.save(input.machineId, command.snapshot));
    }),
  };
}

export const documentLogic = (port: DocumentPort, store: QueueStore) =>
  documentMachine.provide({ actors: documentActors(port, store) });
export type DocumentLogic = ReturnType<typeof documentLogic>;

/** The canvas presence machine over the presence port: facts in, commands out. */
export function canvasPresenceLogic(port: CanvasPresencePort) {
  return canvasPresenceMachine.provide({
    actors: {
      channel: fromCallback<PresenceCommand, PresenceInput>(({ input, sendBack, receive }) => {
        const channel = port.open(input.machineId, input.userId);
        const subscription = channel.facts$.subscribe({
          next: (fact: PresenceFact) => sendBack(fact),
          error: (error: unknown) =>
            sendBack({
              type: 'presence.lost',
              message: error instanceof Error ? error.message : 'The live connection failed',
            }),
        });
        receive((command) => {
          if (command.type === 'send.selection') channel.trackSelection(command.selection);
          else if (command.type === 'send.replay') channel.trackReplay(command.replay);
          else if (command.type === 'send.cursor') channel.moveCursor(command.at);
          else if (command.type === 'send.offer') channel.trackOffer(command.offer);
          else channel.moveView(command.view);
        });
        return () => subscription.unsubscribe();
      }),
    },
  });
}
export type CanvasPresenceLogic = ReturnType<typeof canvasPresenceLogic>;

/**
 * One open machine: its document, presence, layout (with the engine `startLayout` makes),
 * canvas, simulation, timeline, Inspector, tests, test playback, versions, comments and
 * proposals, wired (the panels' machines come built over their ports: src/app/tests.ts,
 * test-playback.ts, versions.ts, comments.ts, proposals.ts).
 */
export function openMachineLogic(
  port: DocumentPort,
  store: QueueStore,
  presence: CanvasPresencePort,
  startLayout: () => LayoutEngine,
  simulations: SimulationPort,
  timeline: TimelinePort,
  panels: {
    tests: TestsLogic;
    testPlayback: TestPlaybackLogic;
    versions: VersionsLogic;
    comments: CommentsLogic;
    proposals: ProposalsLogic;
  },
) {
  return openMachineMachine.provide({
    actors: {
      document: documentLogic(port, store),
      presence: canvasPresenceLogic(presence),
      layout: layoutLogic(startLayout),
      simulation: simulationLogic(simulations),
      timeline: timelineLogic(timeline, startLayout),
      tests: panels.tests,
      testPlayback: panels.testPlayback,
      versions: panels.versions,
      comments: panels.comments,
      proposals: panels.proposals,
    },
  });
}
export type OpenMachineLogic = ReturnType<typeof openMachineLogic>;
