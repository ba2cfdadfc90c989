import type pg from 'pg';
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import { dropSlot, dropStaleSlots, ensureSlot } from './slots.ts';

export const PUBLICATION = 'supabase_realtime';

/** A message the plugin could not parse; reported, then the stream goes on. */
export interface DecodeFailure {
  tag: 'decode-error';
  error: unknown;
}

export type StreamMessage = Pgoutput.Message | DecodeFailure;

/**
 * pgoutput decoding that keeps every value in PostgreSQL's text form (pg's global type
 * parsers would turn int4 into numbers but int8 into strings, json into objects...), and
 * that never lets a parse error escape into the connection's event handler, where it
 * would be an uncaught exception.
 */
export class TextPgoutputPlugin extends PgoutputPlugin {
  override parse(buffer: Buffer): Pgoutput.Message {
    try {
      const message = super.parse(buffer);
      if (message.tag === 'relation') {
        for (const column of message.columns) column.parser = (raw: unknown) => raw;
      }
      return message;
    } catch (error) {
      // Typed as a message so the library passes it on; the feed checks the tag first.
      return { tag: 'decode-error', error } as unknown as Pgoutput.Message;
    }
  }
}

export interface ReaderOptions {
  databaseUrl: string;
  pool: pg.Pool;
  slotName: string;
  log: (line: string) => void;
  onMessage: (message: StreamMessage) => void;
}

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;

/**
 * The one replication connection of a feed: a logical slot of its own on the
 * `supabase_realtime` publication, every position acknowledged as soon as it is read
 * (the feed keeps nothing to replay, so the slot never holds WAL back), reconnecting
 * with backoff when the connection drops, and dropping its slot on close.
 */
export class ReplicationReader {
  private service: LogicalReplicationService | null = null;
  private closing = false;
  private loop: Promise<void> | null = null;
  /** Ends a backoff wait early when close() is called. */
  private wake: (() => void) | null = null;
  private markReady!: () => void;
  readonly ready: Promise<void> = new Promise((resolve) => (this.markReady = resolve));

  constructor(private readonly options: ReaderOptions) {}

  async start(): Promise<void> {
    if (this.loop) return;
    const dropped = await dropStaleSlots(this.options.pool).catch((error: unknown) => {
      this.options.log(`[realtime] stale slot cleanup failed: ${String(error)}`);
      return [];
    });
    if (dropped.length > 0) this.options.log(`[realtime] dropped stale replication slots: ${dropped.join(', ')}`);
    this.loop = this.run();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.wake?.();
    await this.service?.stop().catch(() => undefined);
    await this.loop;
    this.loop = null;
    const dropped = await dropSlot(this.options.pool, this.options.slotName).catch(() => false);
    if (!dropped) this.options.log(`[realtime] could not drop replication slot ${this.options.slotName}`);
  }

  private async run(): Promise<void> {
    const { log, slotName, pool } = this.options;
    let backoff = MIN_BACKOFF_MS;
    let everStreamed = false;
    while (!this.closing) {
      const service = new LogicalReplicationService(
        { connectionString: this.options.databaseUrl, application_name: 'chartroom_realtime' },
        { acknowledge: { auto: true, timeoutSeconds: 5 } },
      );
      this.service = service;
      service.on('data', (_lsn: string, message: StreamMessage) => {
        try {
          this.options.onMessage(message);
        } catch (error) {
          log(`[realtime] change handler failed: ${String(error)}`);
        }
      });
      service.on('heartbeat', (lsn: string, _time: number, shouldRespond: boolean) => {
        // The server asks for a reply before wal_sender_timeout; answering also moves the
        // slot past WAL that contained nothing for us.
        if (shouldRespond) service.acknowledge(lsn).catch(() => undefined);
      });
      service.on('error', (error: Error) => {
        if (!this.closing) log(`[realtime] replication connection error: ${error.message}`);
      });
      service.on('start', () => {
        backoff = MIN_BACKOFF_MS;
        everStreamed = true;
        this.markReady();
        // close() came while this connection was being made (after a reconnect): its
        // stop() found nothing to stop yet, and this stream would keep close() waiting forever.
        if (this.closing) void service.stop().catch(() => undefined);
      });
      try {
        const created = await ensureSlot(pool, slotName);
        if (created && everStreamed)
          log(`[realtime] replication slot ${slotName} was gone; recreated (changes in between are lost)`);
        const plugin = new TextPgoutputPlugin({ protoVersion: 1, publicationNames: [PUBLICATION] });
        if (!this.closing) await service.subscribe(plugin, slotName);
      } catch (error) {
        if (!this.closing) log(`[realtime] replication stopped: ${String(error)}`);
      }
      await service.destroy().catch(() => undefined);
      if (this.closing) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoff);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
