import { createQueueStore } from '../adapters/queue-store.ts';
import { canvasPresenceLogic, documentLogic, type CanvasPresenceLogic, type DocumentLogic } from './canvas.ts';
import { live } from './live.ts';

/** The canvas's machines with the real adapters; loaded with the canvas, made on first use. */

let documentMemo: DocumentLogic | null = null;
/** Unsent edits wait in localStorage, so a reload (even offline) loses none. */
export function liveDocumentLogic(): DocumentLogic {
  return (documentMemo ??= documentLogic(live().machines, createQueueStore(window.localStorage)));
}

let presence: CanvasPresenceLogic | null = null;
export function liveCanvasPresenceLogic(): CanvasPresenceLogic {
  return (presence ??= canvasPresenceLogic(live().canvasPresence));
}
