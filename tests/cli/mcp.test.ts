import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { filter, firstValueFrom, shareReplay } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCanvasPresenceAdapter } from '../../src/adapters/supabase/canvas-presence.ts';
import { chartroomMcpServer } from '../../src/cli/mcp.ts';
import { Room } from '../../src/cli/room.ts';
import { Session } from '../../src/cli/session.ts';
import { importText } from '../../src/lib/convert/index.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { CanvasPeerState, PresenceFact } from '../../src/lib/ports/canvas-presence.ts';
import { signedInClient } from '../setup/clients.ts';
import { runIn, tempRepo } from './harness.ts';

/** `chartroom mcp`: the command's abilities as MCP tools, driven by the SDK's own client against the real backend. */

const TOOLS = [
  'apply_machine',
  'diff_machine',
  'generate_paths',
  'list_machines',
  'list_projects',
  'read_machine',
  'render_machine',
  'send_event',
  'start_simulation',
];

const NOT_YOURS = "Couldn't open this machine: it no longer exists or you no longer have access.";

const DOOR = `import { createMachine } from 'xstate';

export const door = createMachine({
  id: 'door',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'open' } },
    open: { on: { CLOSE: 'closed' } },
  },
});
`;

let repo: string;
let done: () => Promise<void>;
let session: Session;
let room: Room;
let client: Client;
let projectId: string;
let machineId: string;
let hiddenMachineId: string;
let person: Awaited<ReturnType<typeof signedInClient>>;

function definitionOf(source: string): MachineDefinition {
  const { definition } = importText(source, 'door.ts');
  if (!definition) throw new Error('the test machine does not import');
  return definition;
}

/** A tool's answer: its text, and whether it is an error. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return { text, isError: result.isError === true };
}

const stateKeys = (def: MachineDefinition): string[] =>
  Object.values(def.states)
    .map((s) => s.key)
    .sort();

beforeAll(async () => {
  ({ dir: repo, done } = await tempRepo('chartroom-mcp-'));
  person = await signedInClient('mcp');
  const { data, error } = await person.client.from('projects').insert({ name: 'MCP project' }).select('id').single();
  if (error) throw error;
  projectId = data.id as string;
  expect((await runIn(repo, ['login', '--email', person.email, '--password', person.password])).code).toBe(0);
  session = await Session.resume(repo);
  room = new Room(session);
  machineId = (await room.create(projectId, 'Door', definitionOf(DOOR))).id;

  // Someone else's machine, in a project this person is not in.
  const other = await signedInClient('mcp-other');
  const theirs = await other.client.from('projects').insert({ name: 'Not yours' }).select('id').single();
  if (theirs.error) throw theirs.error;
  const otherRepo = await tempRepo('chartroom-mcp-other-');
  try {
    expect((await runIn(otherRepo.dir, ['login', '--email', other.email, '--password', other.password])).code).toBe(0);
    const otherSession = await Session.resume(otherRepo.dir);
    hiddenMachineId = (await new Room(otherSession).create(theirs.data.id as string, 'Secret', definitionOf(DOOR))).id;
    await otherSession.close();
  } finally {
    await otherRepo.done();
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await chartroomMcpServer(room).connect(serverSide);
  client = new Client({ name: 'mcp-test', version: '0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client?.close();
  await session?.close();
  await done();
});

describe('chartroom mcp, over the SDK', () => {
  it('lists its tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const read = tools.find((t) => t.name === 'read_machine')!;
    expect(read.inputSchema.properties).toHaveProperty('machineId');
    expect(read.inputSchema.required).toEqual(['machineId']);
  });

  it("lists the person's projects and a project's machines", async () => {
    expect((await call('list_projects')).text).toContain(`${projectId}  owner  MCP project`);
    const machines = await call('list_machines', { projectId });
    expect(machines).toEqual({ text: `${machineId}  v1  Door`, isError: false });
  });

  it('reads a machine as TypeScript and as JSON', async () => {
    const ts = await call('read_machine', { machineId });
    expect(ts.isError).toBe(false);
    expect(stateKeys(definitionOf(ts.text))).toEqual(stateKeys(definitionOf(DOOR)));
    const json = await call('read_machine', { machineId, format: 'json' });
    expect(JSON.parse(json.text)).toMatchObject({ initial: 'closed', states: { open: { on: { CLOSE: 'closed' } } } });
  });

  it('diffs an edited source in words, applies it as ops, and the room has it', async () => {
    const edited = DOOR.replace(
      "open: { on: { CLOSE: 'closed' } },",
      "open: { on: { CLOSE: 'closed', LOCK: 'locked' } },\n    locked: {},",
    );
    const diff = await call('diff_machine', { machineId, source: edited });
    expect(diff.isError).toBe(false);
    expect(diff.text).toMatch(/^applying this source would make \d+ change\(s\):/);
    expect(diff.text).toContain('added state `locked`');
    expect(diff.text).toContain('LOCK');

    const applied = await call('apply_machine', { machineId, source: edited });
    expect(applied.isError).toBe(false);
    expect(applied.text).toMatch(/^\d+ op\(s\) sent; the machine is now at version \d+$/);
    const { definition } = await room.current(machineId);
    expect(stateKeys(definition)).toEqual(stateKeys(definitionOf(edited)));
    expect(stateKeys(definition)).toContain('locked');
    expect((await call('diff_machine', { machineId, source: edited })).text).toBe('same as the room');
    expect((await call('apply_machine', { machineId, source: edited })).text).toBe(
      'the room already has this machine: no ops sent',
    );
  });

  it('renders a machine as SVG text', async () => {
    const svg = await call('render_machine', { machineId });
    expect(svg.isError).toBe(false);
    expect(svg.text).toMatch(/^(<\?xml[^>]*>\s*)?<svg[\s\S]*<\/svg>\s*$/);
    expect(svg.text).toContain('>closed<');
  });

  it('generates test paths in words, and says why it cannot', async () => {
    const shortest = await call('generate_paths', { machineId });
    expect(shortest.isError).toBe(false);
    expect(shortest.text).toMatch(/^\d+ shortest path\(s\):\n1\. /);
    expect(shortest.text).toContain('OPEN');
    const simple = await call('generate_paths', { machineId, kind: 'simple', target: 'open' });
    expect(simple.text).toMatch(/^[1-9]\d* simple path\(s\):/);
    expect(await call('generate_paths', { machineId, kind: 'simple' })).toEqual({
      text: 'Choose a target state for simple paths.',
      isError: true,
    });
  });

  it('starts a shared simulation and sends it events, saying where it stands or why an event did nothing', async () => {
    expect((await call('send_event', { machineId, type: 'OPEN' })).text).toBe(
      'no running simulation on this machine: start_simulation first',
    );
    const started = await call('start_simulation', { machineId });
    expect(started.isError).toBe(false);
    expect(started.text).toMatch(/^simulation \S+ started on version \d+\nactive: closed; context: /);
    const simulationId = /^simulation (\S+)/.exec(started.text)![1]!;
    expect(await call('send_event', { machineId, type: 'OPEN' })).toEqual({
      isError: false,
      text: 'event 1 (OPEN) sent\nactive: open; context: {}',
    });
    expect(await call('send_event', { machineId, simulationId, type: 'OPEN' })).toEqual({
      isError: false,
      text: 'event 2 (OPEN) sent but did nothing (not_enabled)\nactive: open; context: {}',
    });
    const sims = await room.simulations.list(machineId);
    expect(sims.ok && sims.value.map((s) => s.id)).toEqual([simulationId]);
    expect(await call('start_simulation', { machineId: hiddenMachineId })).toMatchObject({ isError: true });
  });

  it("joins the canvas of a machine it works on as the person's agent, beside their own tabs, showing what it touched", async () => {
    // The person's own tab on the same canvas, with a state selected.
    const tab = createCanvasPresenceAdapter(person.client as never).open(machineId, person.user.id);
    // One subscription (one channel) for the whole test; each wait reads its latest peers.
    const synced$ = tab.facts$.pipe(
      filter((f): f is Extract<PresenceFact, { type: 'presence.synced' }> => f.type === 'presence.synced'),
      shareReplay(1),
    );
    const open = synced$.subscribe();
    const peersNow = (wanted: (peers: CanvasPeerState[]) => boolean) =>
      firstValueFrom(synced$.pipe(filter((f) => wanted(f.peers))));
    const tabIn = peersNow((peers) => peers.some((p) => !p.agent && p.selection.length > 0));
    tab.trackSelection(['tab-choice']);
    await tabIn;

    // The agent edits: a state added under the root.
    const before = (await room.current(machineId)).definition;
    const seen = peersNow((peers) => peers.some((p) => p.agent && p.selection.length > 0));
    const edited = (await call('read_machine', { machineId })).text.replace(
      'states: {',
      'states: {\n    touchedByAgent: {},',
    );
    expect((await call('apply_machine', { machineId, source: edited })).isError).toBe(false);
    const peers = (await seen).peers.filter((p) => p.userId === person.user.id);
    // Two peers of one person: their tab keeps its selection, the agent shows what it changed.
    expect(peers.find((p) => !p.agent)).toMatchObject({ selection: ['tab-choice'], connections: 1 });
    const agent = peers.find((p) => p.agent);
    expect(agent).toMatchObject({ connections: 1, replay: null });
    const after = (await room.current(machineId)).definition;
    const added = Object.values(after.states).find((st) => st.key === 'touchedByAgent');
    expect(added && !before.states[added.id]).toBe(true);
    expect(agent?.selection).toEqual([added?.id]);
    open.unsubscribe();
  });

  it('answers isError with a one-line reason for a machine the person cannot see, or a source that does not import', async () => {
    for (const name of ['read_machine', 'render_machine']) {
      const r = await call(name, { machineId: hiddenMachineId });
      expect(r).toEqual({ isError: true, text: NOT_YOURS });
    }
    expect(await call('apply_machine', { machineId: hiddenMachineId, source: DOOR })).toEqual({
      isError: true,
      text: NOT_YOURS,
    });
    const broken = await call('apply_machine', { machineId, source: 'createMachine({ states: {' });
    expect(broken.isError).toBe(true);
    expect(broken.text).toMatch(/^the source does not import: /);
  });
});

describe('chartroom mcp, the command', () => {
  it('serves the tools on stdio, signed in as the session stored in its folder', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.resolve('src/cli/bin.mjs'), 'mcp'],
      cwd: repo,
      env: { ...process.env } as Record<string, string>,
      stderr: 'pipe',
    });
    const stdio = new Client({ name: 'mcp-stdio-test', version: '0' });
    await stdio.connect(transport);
    try {
      const { tools } = await stdio.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      const result = (await stdio.callTool({ name: 'list_machines', arguments: { projectId } })) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining(machineId) as unknown }]);
    } finally {
      await stdio.close();
    }
  });
});
