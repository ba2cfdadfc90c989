import type { SupabaseClient } from '@supabase/supabase-js';
import type { BrowserContext, Page } from 'playwright-core';
import type { Database, Json } from '../../src/adapters/supabase/database.types.ts';
import { createMembersAdapter } from '../../src/adapters/supabase/members.ts';
import { importXState } from '../../src/lib/model/import.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { anonClient, uniqueEmail } from '../setup/clients.ts';
import { PASSWORD, type BrowserApp } from './harness.ts';

export type Client = SupabaseClient<Database>;

/** An account made from Node: its id, a client holding its session, and its email (to sign in a browser). */
export interface Account {
  id: string;
  client: Client;
  email: string;
}

export interface SignedUp extends Account {
  name: string;
}

/**
 * A new account through the real client, its email made from `tag`; with `displayName`, the
 * sign-up's metadata names it (else the profile keeps the name the platform gives it).
 */
export async function signUpAccount(tag: string, displayName?: string): Promise<Account> {
  const client = anonClient() as unknown as Client;
  const email = uniqueEmail(tag);
  const { data, error } = await client.auth.signUp({
    email,
    password: PASSWORD,
    ...(displayName === undefined ? {} : { options: { data: { display_name: displayName } } }),
  });
  if (error || !data.user) throw error ?? new Error('no user');
  return { id: data.user.id, client, email };
}

/** A new account through the real client, its profile named `name` (the name others see). */
export async function signUpPerson(tag: string, name: string): Promise<SignedUp> {
  const account = await signUpAccount(`${tag}-${name.toLowerCase()}`);
  const renamed = await account.client.from('profiles').update({ display_name: name }).eq('id', account.id);
  if (renamed.error) throw new Error(renamed.error.message);
  return { ...account, name };
}

/**
 * A new account signed up through the UI in a fresh browser context (`app.signUp`), and the
 * same person signed in from Node for setup steps; `name` is the email's local part.
 */
export async function signUpInBrowser(
  app: BrowserApp,
  tag: string,
): Promise<Account & { name: string; page: Page; context: BrowserContext }> {
  const { page, context, email } = await app.signUp({ tag });
  const client = anonClient() as unknown as Client;
  const { data, error } = await client.auth.signInWithPassword({ email, password: PASSWORD });
  if (error) throw error;
  return { page, context, client, email, id: data.user.id, name: email.split('@')[0] as string };
}

/** A new project owned by `owner`'s account, with `members` added in their roles; its id. */
export async function createProject(
  owner: Client,
  name: string,
  members: { id: string; role: 'viewer' | 'editor' }[],
): Promise<string> {
  const project = await owner.from('projects').insert({ name }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  const added = await owner
    .from('project_members')
    .insert(members.map((m) => ({ project_id: project.data.id, user_id: m.id, role: m.role, joined_via: 'added' })));
  if (added.error) throw new Error(added.error.message);
  return project.data.id;
}

/** An invite link's token into `projectId` for `role`, made by `owner` (a day, any number of uses). */
export async function inviteToken(owner: Client, projectId: string, role: 'viewer' | 'editor'): Promise<string> {
  const invite = await createMembersAdapter(owner).createInvite({ projectId, role, expiresInDays: 1, maxUses: null });
  if (!invite.ok) throw new Error(invite.error.message);
  return invite.value.token;
}

/** A machine holding `definition`, inserted into the project as `client` (a member who may). */
export async function insertDefinition(
  client: Client,
  projectId: string,
  name: string,
  definition: MachineDefinition,
): Promise<string> {
  const { data, error } = await client
    .from('machines')
    .insert({ project_id: projectId, name, definition: definition as unknown as Json })
    .select('id')
    .single();
  if (error) throw new Error(error.message);
  return data.id;
}

/** A machine made from an XState config, inserted into the project as `client` (a member who may). */
export const insertMachine = (client: Client, projectId: string, name: string, config: unknown): Promise<string> =>
  insertDefinition(client, projectId, name, importXState(config, { name }));

/** Two people in a room: `first` owns a new project holding one machine, `second` is its viewer; each signed in in a browser. */
export interface PairOnMachine {
  first: SignedUp & { page: Page };
  second: SignedUp & { page: Page };
  projectId: string;
  machineId: string;
}

/**
 * Ada and Bo (named `names`), signed up from Node: a project `room` owned by the first with
 * the second as a viewer, a machine `machine` made from `config`, and both signed in through
 * the UI in browsers of `viewport`.
 */
export async function pairOnMachine(
  app: BrowserApp,
  tag: string,
  names: [string, string],
  room: string,
  machine: { name: string; config: unknown },
  viewport = { width: 1400, height: 1000 },
): Promise<PairOnMachine> {
  const [pa, pb] = await Promise.all([signUpPerson(tag, names[0]), signUpPerson(tag, names[1])]);
  const project = await pa.client.from('projects').insert({ name: room }).select('id').single();
  if (project.error) throw new Error(project.error.message);
  const projectId = project.data.id;
  const added = await pa.client
    .from('project_members')
    .insert({ project_id: projectId, user_id: pb.id, role: 'viewer', joined_via: 'added' });
  if (added.error) throw new Error(added.error.message);
  const machineId = await insertMachine(pa.client, projectId, machine.name, machine.config);
  const [sa, sb] = await Promise.all([app.signIn(pa.email, { viewport }), app.signIn(pb.email, { viewport })]);
  return { first: { ...pa, page: sa.page }, second: { ...pb, page: sb.page }, projectId, machineId };
}
