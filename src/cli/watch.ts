import { watch as watchFs } from 'node:fs';
import path from 'node:path';
import { exportXState } from '../lib/model/export.ts';
import type { MachineDefinition } from '../lib/model/types.ts';
import { readText, writeAtomic } from './files.ts';
import type { Room } from './room.ts';

/**
 * `chartroom watch`: one file and one room machine kept in step. Each wake-up (the file's
 * folder changed, or the machine's op stream spoke) runs one sync against the state of
 * both at the last sync:
 * - only the file changed: its machine is pushed as ops (as `push` does);
 * - only the room changed: the file is written back from the room (as `pull` does);
 * - both changed: the room's machine wins. It is written back into the local text (so
 *   what lies outside the room's change, comments and code, stays), and the local text as
 *   it was is kept beside it as FILE.local-<time>, with a message naming it.
 * Syncs never overlap: a wake-up during a sync runs one more sync after it.
 */

export interface WatchDeps {
  room: Room;
  machineId: string;
  /** The file as given on the command line (for messages) and its absolute path. */
  file: string;
  absolute: string;
  /** The machine in the file's text as read, or a CliError saying why it does not import. */
  importFile: (file: string, text: string) => Promise<MachineDefinition>;
  /** The file's new text for the room's definition (write-back for TypeScript). */
  fileText: (previous: string, definition: MachineDefinition) => string;
  out: (line: string) => void;
  err: (line: string) => void;
}

const signature = (def: MachineDefinition): string => JSON.stringify(exportXState(def));

/** A file name part for now: 2026-11-27T14-50-09Z. */
const stamp = (): string =>
  new Date()
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');

export class Watcher {
  private base: { text: string; room: string } | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private readonly stops: (() => void)[] = [];

  constructor(private readonly deps: WatchDeps) {}

  /** Records where both stand, then listens to the file's folder and the machine's op stream. */
  async start(): Promise<void> {
    const { room, machineId, absolute, file } = this.deps;
    const text = await readText(absolute);
    const current = await room.current(machineId);
    this.base = { text, room: signature(current.definition) };
    const local = await this.deps.importFile(file, text).catch(() => null);
    if (local && signature(local) !== this.base.room)
      this.deps.out(`${file} differs from the room: the next save pushes it, the next change in the room pulls`);
    // The folder, not the file: editors save by renaming a new file over the old one.
    const folder = watchFs(path.dirname(absolute), (_, name) => {
      if (name === null || name === path.basename(absolute)) this.wake();
    });
    this.stops.push(() => folder.close());
    // Watching starts once the op stream is live, so no change in the room falls between.
    let live: () => void = () => {};
    const subscribed = new Promise<void>((resolve) => (live = resolve));
    const ops = room.opEvents$(machineId).subscribe((event) => {
      if (event.type === 'connection.lost') this.deps.err(`${file}: lost the room's stream, reconnecting`);
      else {
        if (event.type === 'ops.subscribed') live();
        this.wake();
      }
    });
    this.stops.push(() => ops.unsubscribe());
    await subscribed;
  }

  /** Stops listening and waits for a sync under way to finish (it never leaves a half-written file). */
  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    this.again = false;
    await this.running;
  }

  private wake(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.sync()
      .catch((error: unknown) =>
        this.deps.err(`${this.deps.file}: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        this.running = null;
        if (this.again && this.stops.length > 0) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async sync(): Promise<void> {
    const { room, machineId, absolute, file, out } = this.deps;
    const base = this.base;
    if (!base) return;
    const text = await readText(absolute);
    const current = await room.current(machineId);
    const roomSig = signature(current.definition);
    const fileChanged = text !== base.text;
    const roomChanged = roomSig !== base.room;
    if (!fileChanged && !roomChanged) return;
    if (fileChanged && !roomChanged) {
      // The text read above is the one imported and recorded, so a save caught half written
      // is reported (it does not import) and the next wake takes the whole file.
      const definition = await this.deps.importFile(file, text);
      const pushed = await room.push(machineId, definition);
      // The room as this push left it, not as read again: an edit in the room landing just
      // after the push must still look like a change to the next sync, or it is never pulled.
      this.base = { text, room: signature(pushed.definition) };
      if (pushed.ops > 0) out(`${file}: ${pushed.ops} op(s) sent, now at version ${pushed.version}`);
      return;
    }
    const next = this.deps.fileText(text, current.definition);
    if (fileChanged) {
      const kept = `${absolute}.local-${stamp()}`;
      await writeAtomic(kept, text);
      out(
        `${file}: changed here and in the room since the last sync; the room wins, your edit is kept in ${path.basename(kept)}`,
      );
    }
    if (next !== text) await writeAtomic(absolute, next);
    this.base = { text: next, room: roomSig };
    if (!fileChanged) out(`${file}: written from the room (version ${current.version})`);
  }
}
