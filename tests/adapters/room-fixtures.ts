import type { SupabaseClient } from '@supabase/supabase-js';
import type { Observable, Subscription } from 'rxjs';
import { vi } from 'vitest';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { signedInClient } from '../setup/clients.ts';

export type TypedClient = SupabaseClient<Database>;

/** A signed-up user with a typed client (the adapters take the generated schema). */
export async function person(tag: string) {
  const signed = await signedInClient(tag);
  return { ...signed, client: signed.client as unknown as TypedClient, id: signed.user.id };
}

/** Records every value of a stream so a test can wait for the one it expects. */
export function record<T>(stream: Observable<T>) {
  const seen: T[] = [];
  const subscription: Subscription = stream.subscribe((value) => seen.push(value));
  return {
    seen,
    stop: () => subscription.unsubscribe(),
    async waitFor(match: (value: T) => boolean, timeout = 10_000): Promise<T> {
      return vi.waitFor(
        () => {
          const found = seen.find(match);
          if (found === undefined)
            throw new Error(`not seen yet; saw ${JSON.stringify(seen.map((v) => (v as { type?: string }).type ?? v))}`);
          return found;
        },
        { timeout, interval: 20 },
      );
    },
  };
}

export async function createProject(client: TypedClient, name: string) {
  const { data, error } = await client.from('projects').insert({ name }).select('*').single();
  if (error) throw error;
  return data;
}
