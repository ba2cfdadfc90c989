import { parseFilter, type ChangeFilter } from './filters.ts';
import type { ChangeBinding, ChangeData, ChangeEvent, ChangeSubscriberIdentity } from './types.ts';

export interface CompiledBinding {
  id: number;
  event: ChangeEvent;
  schema: string;
  /** null: every table of the schema. */
  table: string | null;
  filters: ChangeFilter[];
}

export interface Subscriber {
  id: number;
  identity: ChangeSubscriberIdentity;
  /** Equal for subscribers whose role and claims are equal: they share one RLS check. */
  identityKey: string;
  bindings: CompiledBinding[];
  deliver: (ids: number[], data: ChangeData) => void;
  active: boolean;
}

/** JSON with sorted keys, so equal claims give equal keys whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function identityKey(identity: ChangeSubscriberIdentity): string {
  return `${identity.role}|${canonical(identity.claims)}`;
}

export function compileBinding(binding: ChangeBinding): CompiledBinding {
  const parsed = parseFilter(binding.filter);
  const table = binding.table === undefined || binding.table === '' || binding.table === '*' ? null : binding.table;
  return {
    id: binding.id,
    event: binding.event,
    schema: binding.schema,
    table,
    // validate() refuses bad filters before a join; one that slips through matches nothing.
    filters: parsed.ok ? parsed.filters : [{ column: '', op: 'eq', value: '', negate: false }],
  };
}

function indexKeys(binding: CompiledBinding): string {
  return `${binding.schema}\u0000${binding.table ?? '*'}`;
}

export function bindingMatchesTable(binding: CompiledBinding, schema: string, table: string): boolean {
  return (binding.schema === '*' || binding.schema === schema) && (binding.table === null || binding.table === table);
}

export function bindingMatchesEvent(binding: CompiledBinding, type: ChangeData['type']): boolean {
  return binding.event === '*' || binding.event === type;
}

/** Subscribers indexed by the tables their bindings name, so a change only meets its own. */
export class SubscriberRegistry {
  private nextId = 1;
  private readonly byKey = new Map<string, Set<Subscriber>>();

  add(identity: ChangeSubscriberIdentity, bindings: ChangeBinding[], deliver: Subscriber['deliver']): Subscriber {
    const subscriber: Subscriber = {
      id: this.nextId++,
      identity,
      identityKey: identityKey(identity),
      bindings: bindings.map(compileBinding),
      deliver,
      active: true,
    };
    for (const binding of subscriber.bindings) {
      const key = indexKeys(binding);
      let set = this.byKey.get(key);
      if (!set) this.byKey.set(key, (set = new Set()));
      set.add(subscriber);
    }
    return subscriber;
  }

  remove(subscriber: Subscriber): void {
    subscriber.active = false;
    for (const binding of subscriber.bindings) {
      const key = indexKeys(binding);
      const set = this.byKey.get(key);
      set?.delete(subscriber);
      if (set?.size === 0) this.byKey.delete(key);
    }
  }

  updateIdentity(subscriber: Subscriber, identity: ChangeSubscriberIdentity): void {
    subscriber.identity = identity;
    subscriber.identityKey = identityKey(identity);
  }

  /** Subscribers with a binding on this table (any event), each once. */
  candidates(schema: string, table: string): Subscriber[] {
    const found = new Set<Subscriber>();
    for (const key of [`${schema}\u0000${table}`, `${schema}\u0000*`, `*\u0000${table}`, `*\u0000*`]) {
      for (const s of this.byKey.get(key) ?? []) found.add(s);
    }
    return [...found];
  }

  get size(): number {
    let n = 0;
    for (const set of this.byKey.values()) n += set.size;
    return n;
  }
}
