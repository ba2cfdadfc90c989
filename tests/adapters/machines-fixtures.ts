import { emptyState } from '../../src/lib/model/apply-state.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { AnyClient } from '../setup/clients.ts';
import { signedInClient } from '../setup/clients.ts';

/**
 * Shared arrangements for the machines tests (server RLS, adapter, collab through the
 * database): people in roles on a fresh project, and a minimal definition.
 */

/** A machine with only its root state: the smallest definition the model accepts. */
export function emptyDefinition(name = 'untitled'): MachineDefinition {
  return {
    format: 1,
    machineId: name,
    name,
    context: null,
    root: 's_root',
    states: {
      s_root: emptyState('s_root', null, '', 'compound'),
    },
    transitions: {},
  };
}

export interface Person {
  client: AnyClient;
  id: string;
  email: string;
  password: string;
}

export interface Team {
  owner: Person;
  editor: Person;
  viewer: Person;
  outsider: Person;
}

export async function team(): Promise<Team> {
  const [owner, editor, viewer, outsider] = await Promise.all([
    signedInClient('m-owner'),
    signedInClient('m-editor'),
    signedInClient('m-viewer'),
    signedInClient('m-outsider'),
  ]);
  const person = (p: typeof owner): Person => ({
    client: p.client,
    id: p.user.id,
    email: p.email,
    password: p.password,
  });
  return { owner: person(owner), editor: person(editor), viewer: person(viewer), outsider: person(outsider) };
}

/** A fresh private project owned by `owner` with `editor` and `viewer` as members. */
export async function projectFor(t: Team, visibility: 'private' | 'public' = 'private'): Promise<string> {
  const created = await t.owner.client
    .from('projects')
    .insert({ name: 'Machines test', visibility })
    .select('id')
    .single();
  if (created.error) throw new Error(created.error.message);
  const id = created.data.id as string;
  const added = await t.owner.client.from('project_members').insert([
    { project_id: id, user_id: t.editor.id, role: 'editor', joined_via: 'added' },
    { project_id: id, user_id: t.viewer.id, role: 'viewer', joined_via: 'added' },
  ]);
  if (added.error) throw new Error(added.error.message);
  return id;
}

/** A machine in `project`, created by the owner: the column default's bare root `s_root`, version 0. */
export async function machineIn(t: Team, project: string, name = 'door'): Promise<string> {
  // Clients cannot write a definition: the row starts as the bare root (`s_root`).
  const created = await t.owner.client.from('machines').insert({ project_id: project, name }).select('id').single();
  if (created.error) throw new Error(created.error.message);
  return created.data.id as string;
}
