import type { SupabaseClient } from '@supabase/supabase-js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createInspectionFollowAdapter } from '../../src/adapters/supabase/inspection-follow.ts';
import type { FollowChannel, FollowFact, InspectionLook } from '../../src/lib/ports/inspection-follow.ts';
import { until } from '../server/realtime-helpers.ts';
import { anonClient } from '../setup/clients.ts';
import { projectFor, team, type Person, type Team } from './machines-fixtures.ts';

/**
 * Follow mode's channel through the real adapter, supabase-js and the embedded backend:
 * `inspect-follow:<project>` carries a presenter's looks, a stop and a question between
 * members (a viewer included); outsiders, guests (members through a share link) and
 * anonymous callers are refused (RLS on realtime.messages, migration 20261124001900).
 */

type Client = SupabaseClient<Database>;
const typed = (p: Person): Client => p.client as Client;

interface Open {
  channel: FollowChannel;
  facts: FollowFact[];
  close: () => void;
}
const opened: Open[] = [];

function open(client: Client, projectId: string, userId: string): Open {
  const channel = createInspectionFollowAdapter(client).open(projectId, userId);
  const facts: FollowFact[] = [];
  const sub = channel.facts$.subscribe((fact) => facts.push(fact));
  const o = {
    channel,
    facts,
    close: () => {
      sub.unsubscribe();
      channel.close();
    },
  };
  opened.push(o);
  return o;
}

const joined = (o: Open) => until(() => o.facts.some((f) => f.type === 'follow.joined'), 10_000, 'joined');
const lost = (o: Open) => until(() => o.facts.find((f) => f.type === 'follow.lost'), 10_000, 'refused');
const presented = (o: Open, userId: string, position: number | null) =>
  until(
    () =>
      o.facts.find(
        (f): f is Extract<FollowFact, { type: 'follow.presented' }> =>
          f.type === 'follow.presented' && f.presenter.userId === userId && f.presenter.look.position === position,
      ),
    10_000,
    `look at ${position}`,
  );

const LOOK: InspectionLook = { sessionId: '7d0c6f5e-0000-4000-8000-000000000001', actorId: 'x:0', position: null };

let t: Team;
let projectId: string;

beforeAll(async () => {
  t = await team();
  projectId = await projectFor(t);
}, 60_000);

afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

describe('inspection follow channel', () => {
  it("carries a presenter's looks, a question and a stop between members, a viewer included", async () => {
    const owner = open(typed(t.owner), projectId, t.owner.id);
    const viewer = open(typed(t.viewer), projectId, t.viewer.id);
    await Promise.all([joined(owner), joined(viewer)]);

    owner.channel.present(LOOK);
    expect((await presented(viewer, t.owner.id, null)).presenter).toEqual({ userId: t.owner.id, look: LOOK });
    owner.channel.present({ ...LOOK, position: 3 });
    await presented(viewer, t.owner.id, 3);

    viewer.channel.ask();
    await until(
      () => owner.facts.find((f) => f.type === 'follow.asked' && f.userId === t.viewer.id),
      10_000,
      'question',
    );
    owner.channel.present(null);
    await until(() => viewer.facts.find((f) => f.type === 'follow.stopped' && f.userId === t.owner.id), 10_000, 'stop');
  }, 30_000);

  it('refuses outsiders, guests who joined through a share link, and anonymous callers', async () => {
    const created = await typed(t.owner)
      .from('projects')
      .insert({ name: 'Follow link', visibility: 'link' })
      .select('id')
      .single();
    if (created.error) throw new Error(created.error.message);
    const token = await typed(t.owner)
      .rpc('owned_share_tokens', { p_project: created.data.id })
      .single<{ share_token: string }>();
    if (token.error) throw new Error(token.error.message);
    const guestClient = anonClient() as Client;
    const signedIn = await guestClient.auth.signInAnonymously();
    if (signedIn.error || !signedIn.data.user) throw signedIn.error ?? new Error('no guest');
    const joinedLink = await guestClient.rpc('join_shared_project', { p_token: token.data.share_token });
    expect(joinedLink.error).toBeNull();

    const member = open(typed(t.owner), created.data.id, t.owner.id);
    await joined(member);
    const guest = open(guestClient, created.data.id, signedIn.data.user.id);
    const outsider = open(typed(t.outsider), projectId, t.outsider.id);
    const anon = open(anonClient() as Client, projectId, 'anon');
    await Promise.all([lost(guest), lost(outsider), lost(anon)]);
    for (const o of [guest, outsider, anon]) expect(o.facts.some((f) => f.type === 'follow.joined')).toBe(false);
  }, 30_000);

  it('refuses a topic that is not a project id', async () => {
    const weird = open(typed(t.owner), `${projectId}' or true --`, t.owner.id);
    await lost(weird);
    expect(weird.facts.some((f) => f.type === 'follow.joined')).toBe(false);
  }, 30_000);
});
