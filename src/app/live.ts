import { liveRoomAdapters } from '../adapters/supabase/live.ts';
import { createQueueStore } from '../adapters/queue-store.ts';
import { chartroomModel } from '../lib/collab/chartroom.ts';
import { workerLayoutEngine } from '../features/canvas/layout-port.ts';
import type { RoomInput } from '../../machines/room/room.machine.ts';
import { openMachineLogic } from './canvas.ts';
import { inspectionLogic, type InspectionLogic } from './inspection.ts';
import { machineListLogic } from './machine-list.ts';
import { generateInWorker } from '../features/tests/paths-port.ts';
import { testsLogic } from './tests.ts';
import { testPlaybackLogic } from './test-playback.ts';
import { versionsLogic } from './versions.ts';
import { commentsLogic } from './comments.ts';
import { proposalsLogic } from './proposals.ts';
import { connectionLogic, invitesLogic, roomLogic, type ConnectionLogic, type RoomLogic } from './room.ts';

/**
 * The composition of the live room: real adapters, created on first use so pages that
 * never open a room never touch the realtime socket. The room's actor tree (machine
 * list, invites, the open machine with its document, presence, layout and canvas) is
 * wired here, once; React only mounts its root.
 */

let adapters: ReturnType<typeof liveRoomAdapters> | null = null;
const live = () => (adapters ??= liveRoomAdapters());

let room: RoomLogic | null = null;
export function liveRoomLogic(): RoomLogic {
  if (!room) {
    const { machines, members, canvasPresence, simulations, timeline, tests, testPlayback, versions, comments } =
      live();
    const { proposals } = live();
    room = roomLogic(live().room, members, {
      machineList: machineListLogic(machines, live().commentCounts),
      invites: invitesLogic(members),
      // Unsent edits wait in localStorage, so a reload (even offline) loses none.
      openMachine: openMachineLogic(
        machines,
        createQueueStore(window.localStorage),
        canvasPresence,
        workerLayoutEngine,
        simulations,
        timeline,
        {
          // The Tests panel's machine generates paths in a Web Worker and counts recorded simulations.
          tests: testsLogic(tests, generateInWorker, simulations),
          testPlayback: testPlaybackLogic(testPlayback),
          versions: versionsLogic(versions, workerLayoutEngine),
          comments: commentsLogic(comments),
          proposals: proposalsLogic(proposals, comments),
        },
      ),
    });
  }
  return room;
}

/** This tab's id in every machine's op log, minted once per page load. */
const clientId = crypto.randomUUID();

/** What a machine opened in a room needs for its document: this tab's id, the op model, fresh batch ids. */
export const documentSettings: RoomInput['document'] = {
  clientId,
  model: chartroomModel,
  newBatchId: () => crypto.randomUUID(),
};

let inspection: InspectionLogic | null = null;
/** Live inspection's machine over the inspection and machines adapters. */
export function liveInspectionLogic(): InspectionLogic {
  return (inspection ??= inspectionLogic(
    live().inspection,
    live().machines,
    workerLayoutEngine,
    live().inspectionFollow,
  ));
}

/** Where the snippet points the stock inspector. */
export const liveIngestUrl = (): string => live().inspection.ingestUrl();

let connection: ConnectionLogic | null = null;
/** The connection machine over the app's one socket (provided once, at the top). */
export function liveConnectionLogic(): ConnectionLogic {
  return (connection ??= connectionLogic(live().connection));
}
