// One stream of inspection events into a session: keeps only protocol events, applies the
// source's rate limit, and stores them in batches as the service role (the database
// broadcasts each stored batch to the project's members). Used by both transports: a
// WebSocket (one stream per socket) and a POST (one stream per request).
import type { SupabaseClient } from 'npm:@supabase/supabase-js@2';
import { INSPECT_LIMITS, isInspectionEvent, type InspectionEvent } from '../../../src/lib/inspection/protocol.ts';

export interface Opened {
  source_id: string;
  project_id: string;
  rate_per_second: number;
  session: { id: string };
}

/** A token bucket per source, shared by every stream of the source in this worker. */
class Bucket {
  private tokens: number;
  private at = Date.now();
  constructor(
    private readonly rate: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  take(n: number): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}

const buckets = new Map<string, { bucket: Bucket; users: number }>();

export type StoreResult = 'stored' | 'revoked' | 'failed';

export interface Counters {
  received: number;
  stored: number;
  /** Not JSON, or JSON that is not a protocol event. */
  invalid: number;
  /** Over the source's rate limit. */
  throttled: number;
}

export class Ingest {
  readonly counters: Counters = { received: 0, stored: 0, invalid: 0, throttled: 0 };
  private queue: InspectionEvent[] = [];
  private flushing: Promise<void> | null = null;
  private ended = false;
  private readonly bucket: Bucket;
  private stopped = false;

  constructor(
    private readonly admin: SupabaseClient,
    private readonly key: string,
    readonly opened: Opened,
    /** Called once when the key stops opening the source (revoked) or storing fails. */
    private readonly onStop: (why: Exclude<StoreResult, 'stored'>) => void,
  ) {
    const shared = buckets.get(opened.source_id);
    const rate = opened.rate_per_second;
    if (shared) shared.users++;
    else buckets.set(opened.source_id, { bucket: new Bucket(rate, rate * 2), users: 1 });
    this.bucket = buckets.get(opened.source_id)!.bucket;
  }

  /** A JSON text (one frame): parsed, checked and queued; false if it was dropped as invalid. */
  text(text: string): boolean {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.counters.received++;
      this.counters.invalid++;
      return false;
    }
    return this.offer(value);
  }

  /** One parsed value; false if it was not a protocol event. */
  offer(value: unknown): boolean {
    this.counters.received++;
    if (!isInspectionEvent(value)) {
      this.counters.invalid++;
      return false;
    }
    this.queue.push(value);
    this.kick();
    return true;
  }

  /** Takes `n` events from the source's budget; false (and counted as throttled) if over it. */
  admit(n: number): boolean {
    if (this.bucket.take(n)) return true;
    this.counters.throttled += n;
    return false;
  }

  /** Resolves when everything queued so far has been stored (or storing stopped). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Stops accepting; the rate bucket is dropped with its last user. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const shared = buckets.get(this.opened.source_id);
    if (shared && --shared.users === 0) buckets.delete(this.opened.source_id);
  }

  /**
   * Stores what is queued, from the next turn of the event loop: the frames an app sends
   * together (the stock inspector sends an event and the snapshot it caused back to back)
   * then go in one batch and one round trip, instead of the snapshot waiting for the event's
   * insert. Frames arriving while a batch is stored form the next batch.
   */
  private kick(): void {
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => this.flush())
      .finally(() => {
        this.flushing = null;
        if (!this.stopped) this.kick();
      });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0 && !this.stopped) {
      const batch: InspectionEvent[] = [];
      let bytes = 0;
      while (
        this.queue.length > 0 &&
        batch.length < INSPECT_LIMITS.maxBatchEvents &&
        (batch.length === 0 || bytes < INSPECT_LIMITS.maxBatchBytes)
      ) {
        const next = this.queue.shift()!;
        batch.push(next);
        bytes += JSON.stringify(next).length;
      }
      const result = await this.store(batch);
      if (result !== 'stored') {
        this.stopped = true;
        this.queue = [];
        this.onStop(result);
      }
    }
  }

  private async store(events: InspectionEvent[]): Promise<StoreResult> {
    const { data, error } = await this.admin.rpc('ingest_inspection_events', {
      p_key: this.key,
      p_session: this.opened.session.id,
      p_events: events,
    });
    if (error) {
      console.error(`inspect: storing ${events.length} events failed: ${error.code ?? ''} ${error.message}`);
      return 'failed';
    }
    if (data === null) return 'revoked';
    this.counters.stored += (data as { stored: number }).stored;
    return 'stored';
  }
}

/** Opens the session a live key may write to, or null for a wrong or revoked key. */
export async function openSession(admin: SupabaseClient, key: string, client: string): Promise<Opened | null> {
  const { data, error } = await admin.rpc('open_inspection_session', { p_key: key, p_client: client });
  if (error) throw new Error(`open_inspection_session: ${error.message}`);
  return (data as Opened | null) ?? null;
}

export async function endSession(admin: SupabaseClient, session: string): Promise<void> {
  const { error } = await admin.rpc('end_inspection_session', { p_session: session });
  if (error) console.error(`inspect: ending session ${session} failed: ${error.message}`);
}
