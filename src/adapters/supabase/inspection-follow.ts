import type { SupabaseClient } from '@supabase/supabase-js';
import { asyncScheduler, EMPTY, map, mergeMap, of, Subject, throttleTime } from 'rxjs';
import type {
  FollowChannel,
  FollowFact,
  InspectionFollowPort,
  InspectionLook,
} from '../../lib/ports/inspection-follow.ts';
import type { Database } from './database.types.ts';
import { openChannel, type ChannelFact } from './realtime.ts';

/**
 * Follow mode on the inspection page over the private channel `inspect-follow:<project>`
 * (RLS on realtime.messages: members who are not guests receive and send; see the
 * inspection_follow migration). Three broadcasts: `present` (a presenter's look), `stop`
 * and `ask` (a newcomer's question, answered by each presenter with a `present`). A
 * presenter dragging the replay slider sends at most 20 looks a second (the last one
 * always goes). Payloads come from other browsers and are checked before they become facts.
 */

type Client = SupabaseClient<Database>;
type Broadcast = Record<string, unknown>;

const LOOKS_PER_SECOND = 20;
const MAX_ID = 200;

const idOrNull = (v: unknown): v is string | null =>
  v === null || (typeof v === 'string' && v.length > 0 && v.length <= MAX_ID);

function lookOf(v: unknown): InspectionLook | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const { sessionId, actorId, position } = v as Record<string, unknown>;
  if (!idOrNull(sessionId) || !idOrNull(actorId)) return null;
  if (position !== null && (typeof position !== 'number' || !Number.isInteger(position) || position < 0)) return null;
  return { sessionId, actorId, position };
}

/** A broadcast from a peer as a fact, or nothing if it is not one we understand. */
export function followFact(event: string, payload: Broadcast): FollowFact | null {
  const { userId } = payload;
  if (typeof userId !== 'string' || userId === '' || userId.length > MAX_ID) return null;
  if (event === 'stop') return { type: 'follow.stopped', userId };
  if (event === 'ask') return { type: 'follow.asked', userId };
  if (event !== 'present') return null;
  const look = lookOf(payload.look);
  return look ? { type: 'follow.presented', presenter: { userId, look } } : null;
}

function toFact(fact: ChannelFact<never, Broadcast, never>): FollowFact | null {
  switch (fact.type) {
    case 'status':
      return fact.status === 'subscribed'
        ? { type: 'follow.joined' }
        : { type: 'follow.lost', message: fact.message ?? 'The live connection closed' };
    case 'broadcast':
      return followFact(fact.event, fact.payload);
    default:
      return null;
  }
}

export const INSPECT_FOLLOW_TOPIC = (projectId: string) => `inspect-follow:${projectId}`;

export function createInspectionFollowAdapter(client: Client): InspectionFollowPort {
  return {
    open(projectId: string, userId: string): FollowChannel {
      const channel = openChannel<never, Broadcast, never>(client, {
        topic: INSPECT_FOLLOW_TOPIC(projectId),
        private: true,
        broadcast: ['present', 'stop', 'ask'],
      });
      const looks = new Subject<InspectionLook | null>();
      const sent = looks
        .pipe(throttleTime(1000 / LOOKS_PER_SECOND, asyncScheduler, { leading: true, trailing: true }))
        .subscribe((look) => (look ? channel.send('present', { userId, look }) : channel.send('stop', { userId })));
      return {
        facts$: channel.facts$.pipe(
          map(toFact),
          mergeMap((fact) => (fact ? of(fact) : EMPTY)),
        ),
        present: (look) => looks.next(look),
        ask: () => channel.send('ask', { userId }),
        close: () => sent.unsubscribe(),
      };
    },
  };
}
