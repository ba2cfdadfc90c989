import type { SupabaseClient } from '@supabase/supabase-js';
import { concatMap, EMPTY, of, type Observable } from 'rxjs';
import { INSPECT_TOPIC, type StoredInspectionEvent } from '../../lib/inspection/protocol.ts';
import type {
  InspectionFeedEvent,
  InspectionPort,
  InspectionResult,
  InspectionSession,
  InspectionSource,
} from '../../lib/ports/inspection.ts';
import type { Database, Tables } from './database.types.ts';
import { openChannel } from './realtime.ts';

/**
 * Live inspection over Supabase: `create_inspection_source` / `revoke_inspection_source`
 * (owners; the key comes back once), member reads of `inspection_sources`,
 * `inspection_sessions` and `inspection_events` (RLS), and the private channel
 * `inspect:<project>` where the database broadcasts each stored batch (`events`, or
 * `events_stored` for a batch too big for one message), sessions opening and ending, and
 * revocations. The ingest itself is the `inspect` edge function.
 */

type Client = SupabaseClient<Database>;
const PAGE = 1000;
const SOURCE_COLUMNS = 'id, name, max_events, max_days, created_at, revoked_at';

const fail = (error: { message?: string } | null, action: string): { ok: false; message: string } => ({
  ok: false,
  message: error?.message ? `Couldn't ${action}: ${error.message}` : `Couldn't ${action}: can't reach the server.`,
});

type SourceRow = Pick<
  Tables<'inspection_sources'>,
  'id' | 'name' | 'max_events' | 'max_days' | 'created_at' | 'revoked_at'
>;

const toSource = (row: SourceRow): InspectionSource => ({
  id: row.id,
  name: row.name,
  maxEvents: row.max_events,
  maxDays: row.max_days,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

const toSession = (row: Tables<'inspection_sessions'>): InspectionSession => ({
  id: row.id,
  sourceId: row.source_id,
  startedAt: row.started_at,
  lastEventAt: row.last_event_at,
  endedAt: row.ended_at,
  eventCount: Number(row.event_count),
});

type Broadcast = Record<string, unknown>;

function toFeedEvent(event: string, payload: Broadcast): InspectionFeedEvent | null {
  switch (event) {
    case 'events':
      if (!Array.isArray(payload.events)) return null;
      {
        const session = payload.session as { id?: unknown; event_count?: unknown } | undefined;
        return {
          type: 'inspection.eventsReceived',
          events: payload.events as StoredInspectionEvent[],
          ...(session && typeof session.id === 'string'
            ? { sessionCount: { sessionId: session.id, eventCount: Number(session.event_count) } }
            : {}),
        };
      }
    case 'events_stored':
      return typeof payload.session_id === 'string'
        ? {
            type: 'inspection.eventsStored',
            sessionId: payload.session_id,
            lastSeq: Number(payload.last_seq),
            ...(typeof payload.session_event_count === 'number' ? { eventCount: payload.session_event_count } : {}),
          }
        : null;
    case 'session_opened':
    case 'session_ended': {
      const session = payload.session as Tables<'inspection_sessions'> | undefined;
      if (!session || typeof session.id !== 'string') return null;
      return {
        type: event === 'session_opened' ? 'inspection.sessionOpened' : 'inspection.sessionEnded',
        session: toSession(session),
      };
    }
    case 'source_updated':
      return typeof payload.source_id === 'string'
        ? {
            type: 'inspection.sourceUpdated',
            sourceId: payload.source_id,
            maxEvents: Number(payload.max_events),
            maxDays: Number(payload.max_days),
          }
        : null;
    case 'source_revoked':
      return typeof payload.source_id === 'string'
        ? { type: 'inspection.sourceRevoked', sourceId: payload.source_id, revokedAt: String(payload.revoked_at) }
        : null;
    default:
      return null;
  }
}

export function createInspectionAdapter(client: Client, apiUrl: string): InspectionPort {
  return {
    async load(projectId) {
      const [sources, sessions] = await Promise.all([
        client.from('inspection_sources').select(SOURCE_COLUMNS).eq('project_id', projectId).order('created_at', {
          ascending: false,
        }),
        client
          .from('inspection_sessions')
          .select('*')
          .eq('project_id', projectId)
          .order('started_at', { ascending: false })
          .limit(100),
      ]);
      if (sources.error) return fail(sources.error, 'load the sources');
      if (sessions.error) return fail(sessions.error, 'load the sessions');
      return { ok: true, value: { sources: sources.data.map(toSource), sessions: sessions.data.map(toSession) } };
    },

    async createSource(projectId, name) {
      const { data, error } = await client.rpc('create_inspection_source', { p_project: projectId, p_name: name });
      if (error) return fail(error, 'create the source');
      const value = data as unknown as { source: SourceRow; key: string };
      return { ok: true, value: { source: toSource(value.source), key: value.key } };
    },

    async revokeSource(sourceId) {
      const { data, error } = await client.rpc('revoke_inspection_source', { p_source: sourceId });
      if (error) return fail(error, 'revoke the source');
      return { ok: true, value: { sourceId, revokedAt: String(data) } };
    },

    async setRetention(sourceId, maxEvents, maxDays) {
      const { data, error } = await client
        .from('inspection_sources')
        .update({ max_events: maxEvents, max_days: maxDays })
        .eq('id', sourceId)
        .select('max_events, max_days');
      if (error) return fail(error, 'change what is kept');
      // RLS hides the row from a member who may not change it: no row, no change.
      const row = data[0];
      if (!row) return { ok: false, message: "Couldn't change what is kept: only owners and editors may." };
      return { ok: true, value: { sourceId, maxEvents: row.max_events, maxDays: row.max_days } };
    },

    async sessionEvents(sessionId, afterSeq): Promise<InspectionResult<StoredInspectionEvent[]>> {
      const out: StoredInspectionEvent[] = [];
      let after = afterSeq;
      for (;;) {
        const { data, error } = await client
          .from('inspection_events')
          .select('seq, session_id, received_at, body')
          .eq('session_id', sessionId)
          .gt('seq', after)
          .order('seq')
          .limit(PAGE);
        if (error) return fail(error, 'read the session');
        out.push(...(data as unknown as StoredInspectionEvent[]));
        if (data.length < PAGE) return { ok: true, value: out };
        after = data[data.length - 1]!.seq;
      }
    },

    feed$(projectId): Observable<InspectionFeedEvent> {
      const channel = openChannel<'inspection_events', Broadcast, object>(client, {
        topic: INSPECT_TOPIC(projectId),
        private: true,
        broadcast: ['events', 'events_stored', 'session_opened', 'session_ended', 'source_revoked', 'source_updated'],
      });
      return channel.facts$.pipe(
        concatMap((fact): Observable<InspectionFeedEvent> => {
          if (fact.type === 'broadcast') {
            const event = toFeedEvent(fact.event, fact.payload);
            return event ? of(event) : EMPTY;
          }
          if (fact.type !== 'status') return EMPTY;
          return fact.status === 'subscribed'
            ? of({ type: 'inspection.feedJoined' })
            : of({ type: 'inspection.feedLost', message: fact.message ?? 'The live feed closed.' });
        }),
      );
    },

    ingestUrl: () => `${apiUrl.replace(/\/$/, '')}/functions/v1/inspect`,
  };
}
