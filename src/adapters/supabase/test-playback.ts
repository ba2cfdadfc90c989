import type { SupabaseClient } from '@supabase/supabase-js';
import { EMPTY, defer, from, mergeMap, of, type Observable } from 'rxjs';
import type { JsonObject } from '../../lib/model/types.ts';
import {
  MAX_PLAYED_STEPS,
  type PlaybackChannel,
  type PlaybackFact,
  type TestPlaybackPort,
} from '../../lib/ports/test-playback.ts';
import type { TestScript, TestStep } from '../../lib/testing/types.ts';
import type { Database } from './database.types.ts';
import { openChannel, type ChannelFact } from './realtime.ts';

/**
 * Test paths played for the room over the private channel `test-play:<machine id>`
 * (RLS on realtime.messages: readers of the project receive, members send; see the
 * test_playback_channel migration). Three broadcasts: `play` (what someone plays and the
 * step shown), `stop`, and `ask` (a newcomer's question, answered by each player with a
 * `play`). Payloads come from other browsers and are checked before they become facts.
 * A player also tracks presence (keyed by user id, from their first play on; migration
 * test_play_presence): when the last of their connections leaves, the server publishes
 * the leave and the others get `playback.left`, so a closed tab ends its play for all.
 */

type Client = SupabaseClient<Database>;
type Broadcast = Record<string, unknown>;

const strings = (v: unknown, max: number): string[] | null =>
  Array.isArray(v) && v.length <= max && v.every((s) => typeof s === 'string') ? v : null;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function stepOf(v: unknown): TestStep | null {
  if (!isObject(v)) return null;
  const expect = strings(v.expect, 1000);
  if (!expect || (v.kind !== 'event' && v.kind !== 'time')) return null;
  if (v.type !== null && typeof v.type !== 'string') return null;
  return {
    kind: v.kind,
    type: v.type,
    payload: isObject(v.payload) ? v.payload : {},
    guards: isObject(v.guards) ? (v.guards as TestStep['guards']) : {},
    expect,
  };
}

function scriptOf(v: unknown): TestScript | null {
  if (!isObject(v)) return null;
  const start = strings(v.start, 1000);
  if (!start || !Array.isArray(v.steps) || v.steps.length > MAX_PLAYED_STEPS) return null;
  const steps = v.steps.map(stepOf);
  return steps.every((s): s is TestStep => s !== null) ? { start, steps } : null;
}

/** A broadcast from a peer as a fact, or nothing if it is not one we understand. */
export function playbackFact(event: string, payload: Broadcast): PlaybackFact | null {
  const { userId } = payload;
  if (typeof userId !== 'string' || userId === '') return null;
  if (event === 'stop') return { type: 'playback.stopped', userId };
  if (event === 'ask') return { type: 'playback.asked', userId };
  if (event !== 'play') return null;
  const script = scriptOf(payload.script);
  const { title, step } = payload;
  if (!script || typeof title !== 'string' || title.length > 500) return null;
  if (typeof step !== 'number' || !Number.isInteger(step) || step < 0 || step > script.steps.length) return null;
  return { type: 'playback.played', play: { userId, title, script, step } };
}

interface Presence {
  userId: string;
}
type Fact = ChannelFact<never, Broadcast, Presence>;

/** The keys present before and not any more: the people whose last connection left. */
export function leftKeys(before: ReadonlySet<string>, peers: readonly { key: string }[]): string[] {
  const now = new Set(peers.map((p) => p.key));
  return [...before].filter((key) => !now.has(key));
}

/** The channel's facts as playback facts; presence becomes `playback.left` for each person gone. */
function playbackFacts(facts$: Observable<Fact>): Observable<PlaybackFact> {
  return defer(() => {
    let present: ReadonlySet<string> = new Set();
    return facts$.pipe(
      mergeMap((fact): Observable<PlaybackFact> => {
        if (fact.type !== 'presence') {
          const one = toFact(fact);
          return one ? of(one) : EMPTY;
        }
        const left = leftKeys(present, fact.peers);
        present = new Set(fact.peers.map((p) => p.key));
        return from(left.map((userId): PlaybackFact => ({ type: 'playback.left', userId })));
      }),
    );
  });
}

function toFact(fact: Exclude<Fact, { type: 'presence' }>): PlaybackFact | null {
  switch (fact.type) {
    case 'status':
      return fact.status === 'subscribed'
        ? { type: 'playback.joined' }
        : { type: 'playback.lost', message: fact.message ?? 'The live connection closed' };
    case 'broadcast':
      return playbackFact(fact.event, fact.payload);
    default:
      return null;
  }
}

export function createTestPlaybackAdapter(client: Client): TestPlaybackPort {
  return {
    open(machineId: string, userId: string): PlaybackChannel {
      const channel = openChannel<never, Broadcast, Presence>(client, {
        topic: `test-play:${machineId}`,
        private: true,
        broadcast: ['play', 'stop', 'ask'],
        presenceKey: userId,
      });
      let tracked = false;
      return {
        facts$: playbackFacts(channel.facts$),
        show: (play) => {
          if (!play) return channel.send('stop', { userId });
          // Present from the first play on (re-published after every rejoin), so leaving ends it.
          if (!tracked) channel.track({ userId });
          tracked = true;
          channel.send('play', { userId, title: play.title, script: play.script, step: play.step });
        },
        ask: () => channel.send('ask', { userId }),
      };
    },
  };
}
