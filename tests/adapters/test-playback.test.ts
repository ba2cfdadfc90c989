import type { SupabaseClient } from '@supabase/supabase-js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createTestPlaybackAdapter } from '../../src/adapters/supabase/test-playback.ts';
import type { PlaybackChannel, PlaybackFact, PlayShown } from '../../src/lib/ports/test-playback.ts';
import { until } from '../server/realtime-helpers.ts';
import { anonClient } from '../setup/clients.ts';
import { machineIn, projectFor, team, type Person, type Team } from './machines-fixtures.ts';

/**
 * Playing a test path for the room through the real adapter, supabase-js and the embedded
 * backend: the private channel `test-play:<machine>` admits the project's members (a
 * viewer plays too) and, for a public project, anyone signed in to watch; outsiders of a
 * private project and anonymous callers are refused (RLS on realtime.messages).
 */

type Client = SupabaseClient<Database>;
const typed = (p: Person): Client => p.client as Client;

interface Open {
  channel: PlaybackChannel;
  facts: PlaybackFact[];
  close: () => void;
}

const opened: Open[] = [];

function open(client: Client, machineId: string, userId: string): Open {
  const channel = createTestPlaybackAdapter(client).open(machineId, userId);
  const facts: PlaybackFact[] = [];
  const sub = channel.facts$.subscribe((fact) => facts.push(fact));
  const o = { channel, facts, close: () => sub.unsubscribe() };
  opened.push(o);
  return o;
}

const joined = (o: Open) => until(() => o.facts.some((f) => f.type === 'playback.joined'), 10_000, 'joined');
const lost = (o: Open) => until(() => o.facts.find((f) => f.type === 'playback.lost'), 10_000, 'refused');
const played = (o: Open, userId: string, step: number) =>
  until(
    () =>
      o.facts.find(
        (f): f is Extract<PlaybackFact, { type: 'playback.played' }> =>
          f.type === 'playback.played' && f.play.userId === userId && f.play.step === step,
      ),
    10_000,
    `play at step ${step}`,
  );

const PLAY: PlayShown = {
  title: 'start in off → TOGGLE → on',
  script: {
    start: ['off'],
    steps: [{ kind: 'event', type: 'TOGGLE', payload: {}, guards: {}, expect: ['on'] }],
  },
  step: 0,
};

let t: Team;
let machineId: string;
let publicMachineId: string;

beforeAll(async () => {
  t = await team();
  machineId = await machineIn(t, await projectFor(t), 'played');
  publicMachineId = await machineIn(t, await projectFor(t, 'public'), 'played in public');
}, 60_000);

afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

describe('test playback channel', () => {
  it('carries a play, each step, a question and a stop between members, a viewer included', async () => {
    const owner = open(typed(t.owner), machineId, t.owner.id);
    const viewer = open(typed(t.viewer), machineId, t.viewer.id);
    await Promise.all([joined(owner), joined(viewer)]);

    owner.channel.show(PLAY);
    const first = await played(viewer, t.owner.id, 0);
    expect(first.play).toEqual({ userId: t.owner.id, ...PLAY });
    owner.channel.show({ ...PLAY, step: 1 });
    await played(viewer, t.owner.id, 1);

    viewer.channel.ask();
    await until(
      () => owner.facts.find((f) => f.type === 'playback.asked' && f.userId === t.viewer.id),
      10_000,
      'question',
    );
    viewer.channel.show({ ...PLAY, title: 'the viewer plays' });
    expect((await played(owner, t.viewer.id, 0)).play.title).toBe('the viewer plays');

    owner.channel.show(null);
    await until(
      () => viewer.facts.find((f) => f.type === 'playback.stopped' && f.userId === t.owner.id),
      10_000,
      'stop',
    );
  }, 30_000);

  it("ends a player's play for the others when the player's channel goes, and not when a watcher's does", async () => {
    const owner = open(typed(t.owner), machineId, t.owner.id);
    const viewer = open(typed(t.viewer), machineId, t.viewer.id);
    const editor = open(typed(t.editor), machineId, t.editor.id);
    await Promise.all([joined(owner), joined(viewer), joined(editor)]);
    owner.channel.show(PLAY);
    await played(viewer, t.owner.id, 0);
    // A watcher who never played leaves: nobody is told a player left.
    editor.close();
    owner.channel.show({ ...PLAY, step: 1 });
    await played(viewer, t.owner.id, 1);
    // The player's channel goes (as when the tab closes): the viewer learns the player left.
    owner.close();
    await until(
      () => viewer.facts.find((f) => f.type === 'playback.left' && f.userId === t.owner.id),
      10_000,
      'the player left',
    );
    expect(
      viewer.facts.filter((f) => f.type === 'playback.left').map((f) => f.type === 'playback.left' && f.userId),
    ).toEqual([t.owner.id]);
  }, 30_000);

  it('refuses people outside a private project and anonymous callers', async () => {
    const outsider = open(typed(t.outsider), machineId, t.outsider.id);
    const anon = open(anonClient() as Client, machineId, 'anon');
    await Promise.all([lost(outsider), lost(anon)]);
    expect(outsider.facts.some((f) => f.type === 'playback.joined')).toBe(false);
    expect(anon.facts.some((f) => f.type === 'playback.joined')).toBe(false);
  }, 30_000);

  it('lets anyone signed in watch the plays of a public project', async () => {
    const owner = open(typed(t.owner), publicMachineId, t.owner.id);
    const outsider = open(typed(t.outsider), publicMachineId, t.outsider.id);
    await Promise.all([joined(owner), joined(outsider)]);
    owner.channel.show(PLAY);
    await played(outsider, t.owner.id, 0);
  }, 30_000);

  it('refuses a topic that is not a machine id', async () => {
    const weird = open(typed(t.owner), `${machineId}' or true --`, t.owner.id);
    await lost(weird);
    expect(weird.facts.some((f) => f.type === 'playback.joined')).toBe(false);
  }, 30_000);
});
