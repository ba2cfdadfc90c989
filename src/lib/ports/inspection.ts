import type { Observable } from 'rxjs';
import type { StoredInspectionEvent } from '../inspection/protocol.ts';

/**
 * Live inspection of a team's running app: the project's sources (keys the
 * app's stock inspector connects with), its sessions (one per connection), their stored
 * events, and the live feed on the private channel `inspect:<project>`. Implemented over
 * Supabase in src/adapters/supabase/inspection.ts.
 */

export interface InspectionSource {
  id: string;
  name: string;
  maxEvents: number;
  maxDays: number;
  createdAt: string;
  revokedAt: string | null;
}

export interface InspectionSession {
  id: string;
  sourceId: string;
  startedAt: string;
  lastEventAt: string;
  endedAt: string | null;
  eventCount: number;
}

export type InspectionResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** What arrives on `inspect:<project>`, as the inspection machine's events. */
export type InspectionFeedEvent =
  | {
      type: 'inspection.eventsReceived';
      events: StoredInspectionEvent[];
      /** The session's event count in the database after this batch. */
      sessionCount?: { sessionId: string; eventCount: number };
    }
  /** A batch too big for one message: read its rows back. */
  | {
      type: 'inspection.eventsStored';
      sessionId: string;
      lastSeq: number;
      /** The session's event count in the database after this batch. */
      eventCount?: number;
    }
  | { type: 'inspection.sessionOpened'; session: InspectionSession }
  | { type: 'inspection.sessionEnded'; session: InspectionSession }
  | { type: 'inspection.sourceRevoked'; sourceId: string; revokedAt: string }
  /** An owner or editor changed a source's retention. */
  | { type: 'inspection.sourceUpdated'; sourceId: string; maxEvents: number; maxDays: number }
  | { type: 'inspection.feedJoined' }
  | { type: 'inspection.feedLost'; message: string };

export interface InspectionPort {
  load(projectId: string): Promise<InspectionResult<{ sources: InspectionSource[]; sessions: InspectionSession[] }>>;
  /** Owners only; the key is in this answer and nowhere else, ever. */
  createSource(projectId: string, name: string): Promise<InspectionResult<{ source: InspectionSource; key: string }>>;
  revokeSource(sourceId: string): Promise<InspectionResult<{ sourceId: string; revokedAt: string }>>;
  /** Owners and editors: keep the source's last `maxEvents` events, none older than `maxDays` days. */
  setRetention(
    sourceId: string,
    maxEvents: number,
    maxDays: number,
  ): Promise<InspectionResult<{ sourceId: string; maxEvents: number; maxDays: number }>>;
  /** A session's stored events after `afterSeq`, in order. */
  sessionEvents(sessionId: string, afterSeq: number): Promise<InspectionResult<StoredInspectionEvent[]>>;
  feed$(projectId: string): Observable<InspectionFeedEvent>;
  /** The ingest URL the snippet shows (`<gateway>/functions/v1/inspect`). */
  ingestUrl(): string;
}
