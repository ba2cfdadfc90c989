import type { SupabaseClient } from '@supabase/supabase-js';
import { vi } from 'vitest';
import type { Database } from '../../src/adapters/supabase/database.types.ts';
import { createProjectsAdapter } from '../../src/adapters/supabase/projects.ts';
import type { ProjectsFact } from '../../src/lib/ports/projects.ts';
import { signedInClient } from '../setup/clients.ts';

/** Shared by the projects adapter tests: a signed-in person with the adapter, and a watched list stream. */

export async function person(tag: string) {
  const signed = await signedInClient(tag);
  return { ...signed, projects: createProjectsAdapter(signed.client as SupabaseClient<Database>) };
}

/** Collects a person's list facts; `waitFor` resolves with the first fact passing the test. `stops` gets the unsubscribe. */
export function watch(adapter: ReturnType<typeof createProjectsAdapter>, userId: string, stops: (() => void)[]) {
  const seen: ProjectsFact[] = [];
  const subscription = adapter.changes(userId).subscribe((fact) => seen.push(fact));
  stops.push(() => subscription.unsubscribe());
  const waitFor = (test: (fact: ProjectsFact) => boolean) =>
    vi.waitFor(
      () => {
        const found = seen.find(test);
        if (!found) throw new Error(`not yet; saw ${JSON.stringify(seen)}`);
        return found;
      },
      { timeout: 10_000, interval: 50 },
    );
  return { seen, waitFor };
}
