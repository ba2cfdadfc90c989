import pg from 'pg';
import { loadSchemaCache, type SchemaCache } from './schema.ts';
import { addViewRelationships } from './views.ts';

const MISS_RELOAD_INTERVAL_MS = 100;
const RECONNECT_DELAY_MS = 500;

/**
 * Owns the schema cache: loads it, reloads it on `NOTIFY pgrst, 'reload schema'` (a
 * dedicated LISTEN connection that reconnects when it drops) and, rate-limited, when a
 * request names something the cache does not know yet.
 */
export class SchemaCacheHolder {
  private current: SchemaCache | null = null;
  private loading: Promise<SchemaCache> | null = null;
  private again = false;
  private lastMissReload = 0;
  private listener: pg.Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly databaseUrl: string,
    readonly schemas: readonly string[],
    private readonly log: (line: string) => void,
  ) {}

  async start(): Promise<void> {
    await this.reload();
    await this.listen();
  }

  /** The cache to plan with; waits for a reload already under way (a NOTIFY just arrived). */
  async get(): Promise<SchemaCache> {
    if (this.loading) return this.loading;
    if (this.current) return this.current;
    return this.reload();
  }

  /**
   * Called when a plan failed on an unknown name: answers with a cache whose catalog read
   * began after the miss. Reloads at most once per interval; a miss inside the interval
   * waits for its end rather than failing (the DDL that made the name may have committed
   * just after the last read). A reload under way is asked to read once more.
   */
  async refreshOnMiss(): Promise<SchemaCache | null> {
    if (this.loading) return this.reload();
    const wait = this.lastMissReload + MISS_RELOAD_INTERVAL_MS - Date.now();
    if (wait > 0) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      if (this.closed) return null;
      if (this.loading) return this.reload();
    }
    this.lastMissReload = Date.now();
    return this.reload();
  }

  reload(): Promise<SchemaCache> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    const run = async (): Promise<SchemaCache> => {
      try {
        do {
          this.again = false;
          const next = await loadSchemaCache(this.pool, this.schemas);
          await addViewRelationships(this.pool, next);
          this.current = next;
        } while (this.again);
        return this.current;
      } finally {
        this.loading = null;
      }
    };
    this.loading = run();
    return this.loading;
  }

  /** A lost database is retried every RECONNECT_DELAY_MS: say so once, not on every try. */
  private lastLogged: string | null = null;
  private logOnce(line: string): void {
    if (line !== this.lastLogged) this.log(line);
    this.lastLogged = line;
  }

  /** Resolves true once listening, false when it could not connect (a retry is scheduled). */
  private async listen(): Promise<boolean> {
    if (this.closed) return false;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    const retry = () => {
      if (this.listener !== client) return;
      this.listener = null;
      client.removeAllListeners();
      client.on('error', () => undefined);
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        this.listen()
          // Changes may have happened while we were deaf; nothing to reload while still deaf.
          .then((connected) => (connected ? this.reload() : undefined))
          .catch((error: unknown) => this.logOnce(`[rest] schema listener: ${String(error)}`));
      }, RECONNECT_DELAY_MS);
    };
    this.listener = client;
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (msg) => {
      if (msg.channel !== 'pgrst') return;
      const payload = (msg.payload ?? '').trim();
      if (payload === '' || payload === 'reload schema') {
        this.reload().catch((error: unknown) => this.log(`[rest] schema reload failed: ${String(error)}`));
      }
    });
    try {
      await client.connect();
      await client.query('listen pgrst');
      this.lastLogged = null;
      return true;
    } catch (error) {
      retry();
      if (this.current === null) throw error;
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.listener;
    this.listener = null;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
    await this.loading?.catch(() => undefined);
  }
}
