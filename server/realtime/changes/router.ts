import type pg from 'pg';
import type { RequestRole } from '../../postgres/pool.ts';
import { checkRowVisibility, readTableFacts, rowCheckSql, type EarlyCheck, type TableFacts } from './authorize.ts';
import type { WalChange } from './decode.ts';
import type { ChangeFilter } from './filters.ts';
import { filterKey, filterLikelyHolds } from './filters.ts';
import { buildPayload, convertRows, errorPayload } from './payload.ts';
import { bindingMatchesEvent, bindingMatchesTable, type SubscriberRegistry, type Subscriber } from './registry.ts';
import type { ChangeData } from './types.ts';

export interface Delivery {
  subscriber: Subscriber;
  ids: number[];
  data: ChangeData;
}

export interface RouterOptions {
  pool: pg.Pool;
  registry: SubscriberRegistry;
  log: (line: string) => void;
  /** Changes waiting to be routed before new ones are dropped. */
  maxQueue?: number;
  /** Changes authorised at the same time; deliveries still leave in commit order. */
  concurrency?: number;
}

interface Entry {
  change: WalChange;
  started: boolean;
  result: Delivery[] | null;
}

/**
 * The one change router of a feed. Each change is matched to subscribers, filtered and
 * authorised (a few changes at a time), then delivered strictly in commit order. The queue
 * is bounded: when routing falls that far behind, new changes are dropped and counted,
 * the replication stream itself is never held up. Delivery only hands data to the
 * channel layer's callback, which owns per-socket buffering.
 */
export class ChangeRouter {
  private readonly queue: Entry[] = [];
  private dropped = 0;
  private lastDropLog = 0;
  private readonly maxQueue: number;
  /**
   * The facts the previous change of each table version found. Never used to authorise:
   * only to start the RLS check while this change's facts are being read (see speculate).
   */
  private readonly lastFacts = new WeakMap<WalChange['relation'], TableFacts>();
  private readonly concurrency: number;
  /**
   * Table versions whose facts query failed with an early check in it (a policy raising
   * for some claims, a filter that no longer casts): they go without the guess, so a
   * failure that repeats costs the fallback once per change, not the failed query too.
   */
  private readonly noEarly = new WeakSet<WalChange['relation']>();

  constructor(private readonly options: RouterOptions) {
    this.maxQueue = options.maxQueue ?? 10_000;
    this.concurrency = options.concurrency ?? 4;
  }

  push(change: WalChange): void {
    // Nobody listens to this table: nothing to queue, nothing to query.
    if (this.options.registry.candidates(change.relation.schema, change.relation.table).length === 0) return;
    if (this.queue.length >= this.maxQueue) {
      this.dropped++;
      if (Date.now() - this.lastDropLog > 5000) {
        this.lastDropLog = Date.now();
        this.options.log(`[realtime] change queue full: ${this.dropped} changes dropped so far`);
      }
      return;
    }
    this.queue.push({ change, started: false, result: null });
    this.pump();
  }

  get pending(): number {
    return this.queue.length;
  }

  private pump(): void {
    const limit = Math.min(this.queue.length, this.concurrency);
    for (let i = 0; i < limit; i++) {
      const entry = this.queue[i]!;
      if (entry.started) continue;
      entry.started = true;
      this.route(entry.change)
        .catch((error: unknown) => {
          this.options.log(
            `[realtime] routing ${entry.change.type} on ${entry.change.relation.table} failed: ${String(error)}`,
          );
          return [];
        })
        .then((result) => {
          entry.result = result;
          this.drain();
        })
        .catch(() => undefined);
    }
  }

  private drain(): void {
    while (this.queue[0]?.result) {
      const entry = this.queue.shift()!;
      for (const { subscriber, ids, data } of entry.result!) {
        if (!subscriber.active) continue;
        try {
          subscriber.deliver(ids, data);
        } catch (error) {
          this.options.log(`[realtime] delivery failed: ${String(error)}`);
        }
      }
    }
    this.pump();
  }

  /**
   * When the table had RLS on the previous change, every non-service identity that may
   * receive this change will need the row check: ask for it in the same query as the
   * facts, instead of one round trip after the other. With filters, only identities with
   * a binding whose filters likely hold (filterLikelyHolds: a plain `eq` equal to the
   * row's text) are checked early, so subscribers of other rows cost nothing. Its answers
   * are the same lookups the sequential path would run; they are used only if the fresh
   * facts call for no identity outside them.
   */
  private speculate(
    change: WalChange,
    matches: { subscriber: Subscriber; bindings: Subscriber['bindings'] }[],
  ): { keys: Map<string, number>; early: EarlyCheck } | null {
    const hint = this.lastFacts.get(change.relation);
    if (!hint?.rls || change.type === 'DELETE' || !change.newRow || this.noEarly.has(change.relation)) return null;
    const check = rowCheckSql(change.relation, change.newRow);
    if (!check) return null;
    const row = change.newRow;
    const keys = new Map<string, number>();
    const identities: Subscriber['identity'][] = [];
    for (const { subscriber, bindings } of matches) {
      if (subscriber.identity.role === 'service_role' || keys.has(subscriber.identityKey)) continue;
      // A role that could not read the key last time would make the lookup raise, and
      // with it the facts query it rides in: leave it to the path after the facts.
      const readable = hint.selectable.get(subscriber.identity.role);
      if (!readable || !change.relation.primaryKey.every((c) => readable.has(c))) continue;
      if (!bindings.some((b) => b.filters.every((f) => filterLikelyHolds(f, row)))) continue;
      keys.set(subscriber.identityKey, identities.length);
      identities.push(subscriber.identity);
    }
    if (identities.length === 0) return null;
    return { keys, early: { check, xid: change.xid, identities } };
  }

  /** Who receives this change, with which binding ids and which payload. */
  async route(change: WalChange): Promise<Delivery[]> {
    const { relation } = change;
    await relation.ready;
    const matches: { subscriber: Subscriber; bindings: Subscriber['bindings'] }[] = [];
    for (const subscriber of this.options.registry.candidates(relation.schema, relation.table)) {
      const bindings = subscriber.bindings.filter(
        (b) => bindingMatchesTable(b, relation.schema, relation.table) && bindingMatchesEvent(b, change.type),
      );
      if (bindings.length > 0) matches.push({ subscriber, bindings });
    }
    if (matches.length === 0) return [];
    const roles = [...new Set(matches.map((m) => m.subscriber.identity.role))];
    const filters: ChangeFilter[] = matches.flatMap((m) => m.bindings.flatMap((b) => b.filters));
    // Filters see the new row, or for a DELETE the old one (only its key, unless replica identity full).
    const filterRow = change.type === 'DELETE' ? change.oldRow : change.newRow;
    const speculative = this.speculate(change, matches);
    const facts = await readTableFacts(this.options.pool, relation, roles, filters, filterRow, speculative?.early);
    this.lastFacts.set(relation, facts);
    if (speculative && facts.exists && !facts.early) this.noEarly.add(relation);
    if (!facts.exists) return [];
    const pkReadable = (role: RequestRole) => relation.primaryKey.every((c) => facts.selectable.get(role)?.has(c));

    // data null: visible, payload still to build (once per role, below).
    const deliveries: { subscriber: Subscriber; ids: number[]; data: ChangeData | null }[] = [];
    const needRowCheck = new Map<string, { subscriber: Subscriber; ids: number[] }[]>();
    for (const { subscriber, bindings } of matches) {
      const role = subscriber.identity.role;
      const allIds = bindings.map((b) => b.id);
      if (change.type !== 'DELETE' && relation.primaryKey.length === 0) {
        deliveries.push({
          subscriber,
          ids: allIds,
          data: errorPayload(change, 'Error 400: Bad Request, no primary key'),
        });
        continue;
      }
      if (change.type !== 'DELETE' && !pkReadable(role)) {
        deliveries.push({ subscriber, ids: allIds, data: errorPayload(change, 'Error 401: Unauthorized') });
        continue;
      }
      // A DELETE cannot be checked against a row that is gone: it goes to whoever may
      // read the table at all, with only the primary key when the table has RLS.
      if (change.type === 'DELETE' && (facts.selectable.get(role)?.size ?? 0) === 0) continue;
      const ids = bindings
        .filter((b) => b.filters.every((f) => facts.filters.get(filterKey(f)) === true))
        .map((b) => b.id);
      if (ids.length === 0) continue;
      if (facts.rls && change.type !== 'DELETE' && role !== 'service_role') {
        const group = needRowCheck.get(subscriber.identityKey) ?? [];
        group.push({ subscriber, ids });
        needRowCheck.set(subscriber.identityKey, group);
      } else {
        deliveries.push({ subscriber, ids, data: null });
      }
    }

    if (needRowCheck.size > 0) {
      const check = change.newRow ? rowCheckSql(relation, change.newRow) : null;
      const groups = [...needRowCheck.values()];
      const identities = groups.map((g) => g[0]!.subscriber.identity);
      const early = facts.early;
      let visible: boolean[];
      if (early && speculative && groups.every((g) => speculative.keys.has(g[0]!.subscriber.identityKey))) {
        visible = groups.map((g) => early[speculative.keys.get(g[0]!.subscriber.identityKey)!] === true);
      } else if (check) {
        visible = await checkRowVisibility(this.options.pool, check, change.xid, identities, this.options.log);
      } else {
        visible = groups.map(() => false);
      }
      groups.forEach((group, i) => {
        if (visible[i]) for (const { subscriber, ids } of group) deliveries.push({ subscriber, ids, data: null });
      });
    }

    if (deliveries.length === 0) return [];
    const rows = deliveries.some((d) => d.data === null) ? await convertRows(this.options.pool, change) : null;
    const byRole = new Map<RequestRole, ChangeData>();
    return deliveries.map(({ subscriber, ids, data }) => {
      if (data || !rows) return { subscriber, ids, data: data! };
      const role = subscriber.identity.role;
      let payload = byRole.get(role);
      if (!payload) {
        payload = buildPayload(change, rows, facts.selectable.get(role) ?? new Set(), facts.rls);
        byRole.set(role, payload);
      }
      return { subscriber, ids, data: payload };
    });
  }
}
