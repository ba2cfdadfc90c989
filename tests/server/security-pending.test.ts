import type { SupabaseClient } from '@supabase/supabase-js';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCanvasPresenceAdapter } from '../../src/adapters/supabase/canvas-presence.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import type { PresenceFact } from '../../src/lib/ports/canvas-presence.ts';
import type { OpStreamEvent } from '../../src/lib/ports/document.ts';
import { machineIn, projectFor, team, type Person, type Team } from '../adapters/machines-fixtures.ts';
import { closeClients, RawSocket, until } from './realtime-helpers.ts';

/**
 * Edits sent ahead of the log (`machine-pending:<machine>`), from the outside: the app's
 * own adapter on one side, raw frames from a viewer, an editor and an outsider on the
 * other. Readers receive; only editors send; a batch claiming someone else, or malformed,
 * never becomes a fact; nothing sent here reaches the log.
 */

type Client = SupabaseClient<Database>;
const typed = (p: Person): Client => p.client as Client;
const token = async (p: Person): Promise<string> => (await p.client.auth.getSession()).data.session!.access_token;
const rename = (name: string) => ({ type: 'machine.update', changes: { name } });

let t: Team;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  t = await team();
}, 60_000);
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
afterAll(closeClients);

/** The owner's document stream on a fresh machine, collecting its facts once live. */
async function ownerWatching(name: string): Promise<{ machine: string; facts: OpStreamEvent[] }> {
  const machine = await machineIn(t, await projectFor(t), name);
  const facts: OpStreamEvent[] = [];
  const sub = createMachinesAdapter(typed(t.owner))
    .opEvents$(machine)
    .subscribe((f) => facts.push(f));
  cleanups.push(() => sub.unsubscribe());
  await until(() => facts.find((f) => f.type === 'ops.subscribed'), 10_000, 'the log channel');
  await until(() => facts.find((f) => f.type === 'ops.aheadLive'), 10_000, 'the channel for batches sent ahead');
  return { machine, facts };
}

const seenIds = (facts: OpStreamEvent[]): string[] =>
  facts.flatMap((f) => (f.type === 'ops.seen' ? [f.batch.batchId] : []));

describe('edits sent ahead of the log', () => {
  it("an editor's append reaches the other documents at once as a batch seen, stamped with its sender", async () => {
    const { machine, facts } = await ownerWatching('ahead');
    const editor = createMachinesAdapter(typed(t.editor));
    // The editor's own document is open (its pending channel joined), as in the app.
    const mine: OpStreamEvent[] = [];
    const sub = editor.opEvents$(machine).subscribe((f) => mine.push(f));
    cleanups.push(() => sub.unsubscribe());
    await until(
      () => mine.find((f) => f.type === 'ops.aheadLive'),
      10_000,
      "the editor's channel for batches sent ahead",
    );
    const batchId = randomUUID();
    const done = await editor.commitOps({
      machineId: machine,
      clientId: 'ed-tab',
      batchId,
      ops: [rename('ahead')] as never,
    });
    expect(done.ok).toBe(true);
    const seen = await until(
      () => facts.find((f): f is Extract<OpStreamEvent, { type: 'ops.seen' }> => f.type === 'ops.seen'),
      10_000,
      'the batch seen',
    );
    expect(seen.batch).toEqual({ batchId, clientId: 'ed-tab', userId: t.editor.id, ops: [rename('ahead')] });
    await until(() => facts.find((f) => f.type === 'ops.received'), 10_000, "the log's copy");
    // The sender never sees its own batch as someone else's.
    expect(seenIds(mine)).toEqual([]);
  });

  it("drops a viewer's batch (refused by the server), a forged sender and a malformed batch; outsiders cannot listen", async () => {
    const { machine, facts } = await ownerWatching('guarded');
    const pendingTopic = `realtime:machine-pending:${machine}`;
    const batch = (batchId: string, userId: string, ops: unknown = [rename(batchId)]) => ({
      type: 'broadcast',
      event: 'pending',
      payload: { batchId, clientId: 'raw', userId, ops },
    });

    // A viewer may listen, but what they send is refused. To know it was handled, the same
    // socket then moves a cursor on the machine's canvas, which the owner does receive.
    const canvas: PresenceFact[] = [];
    const presence = createCanvasPresenceAdapter(typed(t.owner)).open(machine, t.owner.id);
    const canvasSub = presence.facts$.subscribe((f) => canvas.push(f));
    cleanups.push(() => canvasSub.unsubscribe());
    await until(() => canvas.find((f) => f.type === 'presence.joined'), 10_000, 'the canvas');
    const viewer = await RawSocket.open('1.0.0');
    cleanups.push(() => viewer.close());
    const asViewer = { config: { private: true }, access_token: await token(t.viewer) };
    expect((await viewer.join(pendingTopic, '1', asViewer)).status).toBe('ok');
    expect((await viewer.join(`realtime:canvas:${machine}`, '2', asViewer)).status).toBe('ok');
    viewer.push('1', '3', pendingTopic, 'broadcast', batch('from-viewer', t.viewer.id));
    viewer.push('2', '4', `realtime:canvas:${machine}`, 'broadcast', {
      type: 'broadcast',
      event: 'cursor',
      payload: { userId: t.viewer.id, x: 1, y: 1 },
    });
    await until(() => canvas.find((f) => f.type === 'cursor.moved' && f.userId === t.viewer.id), 10_000, 'the cursor');

    // An editor's socket: a batch claiming the owner, a malformed one, then an honest one (in order).
    const editor = await RawSocket.open('1.0.0');
    cleanups.push(() => editor.close());
    const asEditor = { config: { private: true }, access_token: await token(t.editor) };
    expect((await editor.join(pendingTopic, '1', asEditor)).status).toBe('ok');
    editor.push('1', '2', pendingTopic, 'broadcast', batch('forged', t.owner.id));
    editor.push('1', '3', pendingTopic, 'broadcast', batch('malformed', t.editor.id, 'not ops'));
    editor.push('1', '4', pendingTopic, 'broadcast', batch('empty', t.editor.id, []));
    editor.push('1', '5', pendingTopic, 'broadcast', batch('honest', t.editor.id));
    await until(() => seenIds(facts).includes('honest'), 10_000, 'the honest batch');
    expect(seenIds(facts)).toEqual(['honest']);

    // Nothing sent ahead reached the log.
    const log = await typed(t.owner).rpc('read_machine_ops', { p_machine: machine, p_after: 0 });
    expect(log.error).toBeNull();
    expect(log.data).toEqual([]);

    // An outsider cannot even listen.
    const outsider = await RawSocket.open('1.0.0');
    cleanups.push(() => outsider.close());
    const refused = await outsider.join(pendingTopic, '1', {
      config: { private: true },
      access_token: await token(t.outsider),
    });
    expect(refused.status).toBe('error');
  });
});
