import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database, Json } from '../../src/adapters/supabase/database.types.ts';
import { importXState } from '../../src/lib/model/import.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { anonClient, uniqueEmail } from '../setup/clients.ts';
import { PASSWORD } from './harness.ts';

export type Client = SupabaseClient<Database>;

export interface SignedUp {
  id: string;
  name: string;
  email: string;
  client: Client;
}

/** A new account through the real client, its profile named `name` (the name others see). */
export async function signUpPerson(tag: string, name: string): Promise<SignedUp> {
  const client = anonClient() as unknown as Client;
  const email = uniqueEmail(`${tag}-${name.toLowerCase()}`);
  const { data, error } = await client.auth.signUp({ email, password: PASSWORD });
  if (error || !data.user) throw error ?? new Error('no user');
  const renamed = await client.from('profiles').update({ display_name: name }).eq('id', data.user.id);
  if (renamed.error) throw new Error(renamed.error.message);
  return { id: data.user.id, name, email, client };
}

/** A machine made from an XState config, inserted into the project as `client` (a member who may). */
export async function insertMachine(client: Client, projectId: string, name: string, config: unknown): Promise<string> {
  const definition: MachineDefinition = importXState(config, { name });
  const { data, error } = await client
    .from('machines')
    .insert({ project_id: projectId, name, definition: definition as unknown as Json })
    .select('id')
    .single();
  if (error) throw new Error(error.message);
  return data.id;
}
