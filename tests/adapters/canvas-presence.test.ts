import type { SupabaseClient } from '@supabase/supabase-js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCanvasPresenceAdapter, replayOf } from '../../src/adapters/supabase/canvas-presence.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import type { CanvasChannel, PresenceFact } from '../../src/lib/ports/canvas-presence.ts';
import type { MachineListEvent } from '../../src/lib/ports/document.ts';
import { until } from '../server/realtime-helpers.ts';
import { anonClient } from '../setup/clients.ts';
import { machineIn, projectFor, team, type Person, type Team } from './machines-fixtures.ts';

/**
 * Canvas presence and the machine list through the real adapters, supabase-js and the
 * embedded backend: the private channel `canvas:<machine>` admits the project's members
 * in every role and nobody else (RLS on realtime.messages); selections, cursors and views
 * reach the others; a burst of pointer moves is throttled to what 20 a second allows,
 * ending where the pointer stopped. The machine list stream reports creates and renames.
 */

type Client = SupabaseClient<Database>;
const typed = (p: Person): Client => p.client as Client;

interface Open {
  channel: CanvasChannel;
  facts: PresenceFact[];
  close: () => void;
}

const opened: Open[] = [];

function open(client: Client, machineId: string, userId: string): Open {
  const channel = createCanvasPresenceAdapter(client).open(machineId, userId);
  const facts: PresenceFact[] = [];
  const sub = channel.facts$.subscribe((fact) => facts.push(fact));
  const o = { channel, facts, close: () => sub.unsubscribe() };
  opened.push(o);
  return o;
}

const joined = (o: Open) => until(() => o.facts.some((f) => f.type === 'presence.joined'), 10_000, 'joined');
const lost = (o: Open) => until(() => o.facts.find((f) => f.type === 'presence.lost'), 10_000, 'refused');
const lastPeers = (o: Open) =>
  [...o.facts]
    .reverse()
    .find((f): f is Extract<PresenceFact, { type: 'presence.synced' }> => f.type === 'presence.synced');
const cursors = (o: Open, userId: string) =>
  o.facts.filter(
    (f): f is Extract<PresenceFact, { type: 'cursor.moved' }> => f.type === 'cursor.moved' && f.userId === userId,
  );

let t: Team;
let machineId: string;
let projectId: string;

beforeAll(async () => {
  t = await team();
  projectId = await projectFor(t);
  machineId = await machineIn(t, projectId, 'presence');
}, 60_000);

afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

describe('canvas presence channel', () => {
  it('lets the owner and a viewer see each other, their selections, cursors and views', async () => {
    const owner = open(typed(t.owner), machineId, t.owner.id);
    const viewer = open(typed(t.viewer), machineId, t.viewer.id);
    await Promise.all([joined(owner), joined(viewer)]);
    owner.channel.trackSelection(['s_root']);
    viewer.channel.trackSelection([]);
    await until(
      () => lastPeers(viewer)?.peers.find((p) => p.userId === t.owner.id && p.selection.includes('s_root')),
      10_000,
      "owner's selection",
    );
    await until(() => lastPeers(owner)?.peers.some((p) => p.userId === t.viewer.id), 10_000, 'viewer present');

    viewer.channel.moveCursor({ x: 12.5, y: -3 });
    const [cursor] = await until(
      () => (cursors(owner, t.viewer.id).length > 0 ? cursors(owner, t.viewer.id) : null),
      10_000,
      'cursor',
    );
    expect(cursor).toEqual({ type: 'cursor.moved', userId: t.viewer.id, at: { x: 12.5, y: -3 } });

    owner.channel.moveView({ x: 100, y: 50, zoom: 1.5 });
    const view = await until(() => viewer.facts.find((f) => f.type === 'view.moved'), 10_000, 'view');
    expect(view).toEqual({ type: 'view.moved', userId: t.owner.id, view: { x: 100, y: 50, zoom: 1.5 } });

    // A pointer leaving the diagram is reported as such.
    viewer.channel.moveCursor(null);
    await until(() => cursors(owner, t.viewer.id).some((f) => f.at === null), 10_000, 'cursor gone');
  }, 30_000);

  it('carries each person’s replay step with their selection, and drops a malformed one (following)', async () => {
    const owner = open(typed(t.owner), machineId, t.owner.id);
    const viewer = open(typed(t.viewer), machineId, t.viewer.id);
    await Promise.all([joined(owner), joined(viewer)]);
    owner.channel.trackSelection(['s_root']);
    owner.channel.trackReplay({ simulationId: 'sim-1', position: 3 });
    const seen = await until(
      () => lastPeers(viewer)?.peers.find((p) => p.userId === t.owner.id && p.replay?.position === 3),
      10_000,
      "owner's replay step",
    );
    // The step rides with the selection: one tracks without losing the other.
    expect(seen).toMatchObject({ selection: ['s_root'], replay: { simulationId: 'sim-1', position: 3 } });
    owner.channel.trackReplay({ simulationId: 'sim-1', position: null });
    await until(
      () => lastPeers(viewer)?.peers.find((p) => p.userId === t.owner.id && p.replay?.position === null),
      10_000,
      'owner back at the live end',
    );
    expect(replayOf({ replay: { simulationId: 'sim-1', position: -1 } })).toBeNull();
    expect(replayOf({ replay: { simulationId: 'sim-1', position: 1.5 } })).toBeNull();
    expect(replayOf({ replay: { simulationId: '', position: 1 } })).toBeNull();
    expect(replayOf({ replay: { simulationId: 'x'.repeat(101), position: 1 } })).toBeNull();
    expect(replayOf({ replay: 'sim-1' })).toBeNull();
    expect(replayOf({})).toBeNull();
  }, 30_000);

  it('sends a burst of pointer moves as the first and the last (20 a second at most)', async () => {
    const editor = open(typed(t.editor), machineId, t.editor.id);
    const owner = open(typed(t.owner), machineId, t.owner.id);
    await Promise.all([joined(editor), joined(owner)]);
    editor.channel.trackSelection([]);
    // Presence first, so the owner knows the editor is here before the burst.
    await until(() => lastPeers(owner)?.peers.some((p) => p.userId === t.editor.id), 10_000, 'editor present');
    for (let i = 0; i < 50; i++) editor.channel.moveCursor({ x: i, y: i });
    await until(() => cursors(owner, t.editor.id).find((f) => f.at?.x === 49), 10_000, 'last position');
    // The burst took one synchronous loop: one window, so exactly the leading and trailing values.
    expect(cursors(owner, t.editor.id).map((f) => f.at?.x)).toEqual([0, 49]);
  }, 30_000);

  it('refuses people outside the project and anonymous callers', async () => {
    const outsider = open(typed(t.outsider), machineId, t.outsider.id);
    const anon = open(anonClient() as Client, machineId, 'anon');
    await Promise.all([lost(outsider), lost(anon)]);
    expect(outsider.facts.some((f) => f.type === 'presence.joined')).toBe(false);
    expect(anon.facts.some((f) => f.type === 'presence.joined')).toBe(false);
  }, 30_000);

  it('refuses a channel for a topic that is not a machine id', async () => {
    const client = typed(t.owner);
    const weird = open(client, `${machineId}' or true --`, t.owner.id);
    await lost(weird);
    expect(weird.facts.some((f) => f.type === 'presence.joined')).toBe(false);
  }, 30_000);
});

describe('machine list stream', () => {
  it('reports a new machine and its rename to another member', async () => {
    const events: MachineListEvent[] = [];
    const sub = createMachinesAdapter(typed(t.editor))
      .machineListEvents$(projectId)
      .subscribe((e) => events.push(e));
    try {
      await until(() => events.some((e) => e.type === 'machines.subscribed'), 10_000, 'subscribed');
      const id = await machineIn(t, projectId, 'listed');
      await until(
        () => events.find((e) => e.type === 'machines.upserted' && e.machine.id === id && e.machine.name === 'listed'),
        10_000,
        'created',
      );
      const owner = createMachinesAdapter(typed(t.owner));
      const renamed = await owner.renameMachine(id, 'relisted');
      expect(renamed.ok).toBe(true);
      await until(
        () =>
          events.find((e) => e.type === 'machines.upserted' && e.machine.id === id && e.machine.name === 'relisted'),
        10_000,
        'renamed',
      );
    } finally {
      sub.unsubscribe();
    }
  }, 30_000);
});
