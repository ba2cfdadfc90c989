import type pg from 'pg';
import { tap } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, fromEventObservable, type ActorRefFrom } from 'xstate';
import type { inspectionSessionMachine } from '../../machines/inspection/inspection-session.machine.ts';
import { createInspectionFollowAdapter } from '../../src/adapters/supabase/inspection-follow.ts';
import { createInspectionAdapter } from '../../src/adapters/supabase/inspection.ts';
import { inspectionLogic } from '../../src/app/inspection.ts';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import type { SupabaseClient } from '@supabase/supabase-js';
import { createSource, inspectUrl, protocolEvent } from '../server/inspect-helpers.ts';
import { until } from '../server/realtime-helpers.ts';
import { adminDb, backendInfo } from '../setup/clients.ts';
import { projectFor, team, type Team } from './machines-fixtures.ts';

/**
 * Missed inspection events for real: the inspection machine runs on the real
 * adapter, supabase-js and the embedded backend, watching a session as a viewer. Two events
 * are then stored without their broadcast (written straight to the table, as if the batch's
 * message were lost while the socket stayed up); the next batch arrives with a seq beyond
 * them, and the page reads the missing two at once, in order, each once.
 */

type Client = SupabaseClient<Database>;

let t: Team;
let db: pg.Client;
let project: string;

beforeAll(async () => {
  t = await team();
  db = await adminDb();
  project = await projectFor(t);
}, 60_000);

afterAll(async () => {
  await t.viewer.client.removeAllChannels();
  await db.end();
});

const post = async (key: string, events: unknown[]) => {
  const res = await fetch(inspectUrl(key, false), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session: 'worker-1', events }),
  });
  expect(res.status).toBe(200);
};

describe('inspection: a dropped broadcast while the feed stays up', () => {
  it('is noticed by the next batch and read back from the database', async () => {
    const { id: sourceId, key } = await createSource(t.owner.client, project);
    const client = t.viewer.client as Client;
    const facts: string[] = [];
    const port = createInspectionAdapter(client, backendInfo().url);
    const logic = inspectionLogic(
      port,
      { createMachine: () => Promise.reject(new Error('not used')) },
      () => ({ port: () => Promise.reject(new Error('not used')), close: () => undefined }),
      createInspectionFollowAdapter(client),
    ).provide({
      actors: {
        feed: fromEventObservable(({ input }: { input: { projectId: string } }) =>
          port.feed$(input.projectId).pipe(tap((fact) => facts.push(fact.type))),
        ),
      },
    });
    const actor = createActor(logic, { input: { projectId: project, isOwner: false, userId: t.viewer.id } }).start();
    try {
      await until(() => facts.includes('inspection.feedJoined'), 20_000, 'the feed to join');
      await post(key, [protocolEvent(1), protocolEvent(2)]);
      const session = await until(
        () => actor.getSnapshot().children.session as ActorRefFrom<typeof inspectionSessionMachine> | undefined,
        20_000,
        'live events to pick the session',
      );
      const seqs = () => session.getSnapshot().context.events.map((e) => e.seq);
      await until(() => seqs().length === 2 && session.getSnapshot().hasTag('live'), 20_000, 'the first two events');
      const sessionId = session.getSnapshot().context.sessionId;

      // Seqs 3 and 4 stored with no broadcast: their message is lost, the socket stays up.
      await db.query(
        `with bumped as (update public.inspection_sources set last_seq = last_seq + 2 where id = $1 returning last_seq)
         insert into public.inspection_events (source_id, seq, session_id, project_id, type, actor_id, root_id, body)
         select $1, s, $2, $3, '@xstate.event', 'x:0', 'x:0', $4::jsonb
           from bumped, generate_series(bumped.last_seq - 1, bumped.last_seq) as s`,
        [sourceId, sessionId, project, JSON.stringify(protocolEvent(99))],
      );
      expect(seqs()).toEqual([1, 2]);

      await post(key, [protocolEvent(5)]);
      await until(() => seqs().length >= 5, 20_000, 'the missing events read back');
      expect(seqs()).toEqual([1, 2, 3, 4, 5]);
      expect(facts.filter((f) => f === 'inspection.feedJoined')).toHaveLength(1); // no rejoin was needed
      expect(session.getSnapshot().hasTag('live')).toBe(true);
    } finally {
      actor.stop();
    }
  }, 120_000);
});
