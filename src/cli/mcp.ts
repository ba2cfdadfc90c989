import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Subscription } from 'rxjs';
import { z } from 'zod';
import { generatePaths } from '../lib/testing/generate.ts';
import { describeDiff } from '../lib/canvas-ops/describe-diff.ts';
import { exportJson, exportTypeScript, importText } from '../lib/convert/index.ts';
import type { JsonObject, MachineDefinition } from '../lib/model/types.ts';
import type { CanvasChannel } from '../lib/ports/canvas-presence.ts';
import type { SimResult, SimulationRecord } from '../lib/ports/simulation.ts';
import { replayToState } from '../lib/simulation/replay.ts';
import type { SimStep } from '../lib/simulation/types.ts';
import { CliError } from './files.ts';
import { machineSvg } from './render.ts';
import type { Room } from './room.ts';

/**
 * `chartroom mcp`: the command's abilities as Model Context Protocol tools, for a coding
 * agent. The server speaks as the signed-in person (the room it is given), so the agent
 * sees and changes only what that person may (row-level security does the rest). Each tool
 * answers text, or `isError` with a one-line reason.
 */

const FORMAT = z
  .enum(['typescript', 'json'])
  .describe('typescript: an XState v5 createMachine/setup file; json: the machine config as JSON');

const text = (body: string): CallToolResult => ({ content: [{ type: 'text', text: body }] });

/** A tool's body, with any failure answered as the tool's one-line error rather than a protocol error. */
async function answer(work: () => Promise<string>): Promise<CallToolResult> {
  try {
    return text(await work());
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { isError: true, content: [{ type: 'text', text: message.split('\n')[0] ?? message }] };
  }
}

/** The machine in `source`, or the importer's first error (with its line and column) as a CliError. */
function importSource(source: string, format: 'typescript' | 'json' = 'typescript'): MachineDefinition {
  const result = importText(source, format === 'json' ? 'machine.json' : 'machine.ts');
  const first = result.issues.find((i) => i.severity === 'error');
  if (result.definition === null || first) {
    const where = first?.at ? `${first.at.line}:${first.at.column}: ` : '';
    throw new CliError(`the source does not import: ${where}${first?.message ?? 'no machine found'}`);
  }
  return result.definition;
}

function sim<T>(result: SimResult<T>): T {
  if (!result.ok) throw new CliError(result.error.message);
  return result.value;
}

/** Where a simulation stands after its whole log, replayed as every client replays it. */
async function simulationState(room: Room, record: SimulationRecord): Promise<SimStep> {
  const entries = sim(await room.simulations.eventsSince(record.id, 0));
  return replayToState({ definition: record.definition, context: record.context, guards: record.guards }, entries);
}

const stateLine = (step: SimStep): string =>
  `active: ${step.activePaths.join(', ')}${step.done ? ' (done)' : ''}; context: ${JSON.stringify(step.context)}`;

/**
 * The agent on the canvases it works on: it joins a machine's presence as the signed-in
 * person's agent ("Ada's agent", a peer of its own beside her tabs) the first time a tool
 * reads or changes that machine, and stays until the server closes, so the team sees it
 * there. After an edit its selection is what the edit touched, so the team sees where it
 * worked (the app draws the agent's cursor there).
 */
class CanvasPresence {
  private readonly joined = new Map<string, { channel: CanvasChannel; subscription: Subscription }>();

  constructor(private readonly room: Room) {}

  join(machineId: string): CanvasChannel {
    const known = this.joined.get(machineId);
    if (known) return known.channel;
    const channel = this.room.canvasPresence.open(machineId, this.room.userId, 'agent');
    const subscription = channel.facts$.subscribe({ error: () => this.joined.delete(machineId) });
    this.joined.set(machineId, { channel, subscription });
    channel.trackSelection([]);
    return channel;
  }

  /** Shows what the agent just changed on that machine's canvas. */
  worked(machineId: string, touched: string[]): void {
    this.join(machineId).trackSelection(touched);
  }

  leaveAll(): void {
    for (const { subscription } of this.joined.values()) subscription.unsubscribe();
    this.joined.clear();
  }
}

export function chartroomMcpServer(room: Room): McpServer {
  const server = new McpServer({ name: 'chartroom', version: '0.1.0' });
  const presence = new CanvasPresence(room);
  server.server.onclose = () => presence.leaveAll();
  /** The room's machine, once the person is known to see it; the agent joins its canvas. */
  const current = async (machineId: string): ReturnType<Room['current']> => {
    const found = await room.current(machineId);
    presence.join(machineId);
    return found;
  };

  server.registerTool(
    'list_projects',
    { description: 'The projects you are in: one line each, "id  role  name".' },
    () =>
      answer(async () => {
        const projects = await room.listProjects();
        if (projects.length === 0) return 'no projects';
        return projects.map((p) => `${p.id}  ${p.role}  ${p.name}`).join('\n');
      }),
  );

  server.registerTool(
    'list_machines',
    {
      description: 'A project\'s machines: one line each, "id  v<version>  name".',
      inputSchema: { projectId: z.string().describe('a project id from list_projects') },
    },
    ({ projectId }) =>
      answer(async () => {
        const machines = await room.listMachines(projectId);
        if (machines.length === 0) return 'no machines in this project';
        return machines.map((m) => `${m.id}  v${m.version}  ${m.name}`).join('\n');
      }),
  );

  server.registerTool(
    'read_machine',
    {
      description: "A machine's current version in the room, as XState TypeScript or JSON.",
      inputSchema: { machineId: z.string(), format: FORMAT.default('typescript') },
    },
    ({ machineId, format }) =>
      answer(async () => {
        const { definition } = await current(machineId);
        return format === 'json' ? exportJson(definition) : exportTypeScript(definition);
      }),
  );

  server.registerTool(
    'apply_machine',
    {
      description:
        "Makes the room's machine what `source` says: the difference is sent as ops, which everyone in the room sees at once. Answers how many ops were sent.",
      inputSchema: {
        machineId: z.string(),
        source: z.string().describe("the whole machine, e.g. read_machine's text after your edit"),
        format: FORMAT.default('typescript'),
      },
    },
    ({ machineId, source, format }) =>
      answer(async () => {
        const pushed = await room.push(machineId, importSource(source, format));
        presence.worked(machineId, pushed.touched);
        return pushed.ops === 0
          ? 'the room already has this machine: no ops sent'
          : `${pushed.ops} op(s) sent; the machine is now at version ${pushed.version}`;
      }),
  );

  server.registerTool(
    'diff_machine',
    {
      description:
        "What applying `source` would change in the room's machine, in words (added, removed and changed states and transitions).",
      inputSchema: { machineId: z.string(), source: z.string(), format: FORMAT.default('typescript') },
    },
    ({ machineId, source, format }) =>
      answer(async () => {
        const local = importSource(source, format);
        const { definition } = await current(machineId);
        const changes = describeDiff(definition, local);
        if (changes.length === 0) return 'same as the room';
        return [`applying this source would make ${changes.length} change(s):`, ...changes.map((c) => c.text)].join(
          '\n',
        );
      }),
  );

  server.registerTool(
    'render_machine',
    {
      description: "The machine's diagram as SVG text, laid out as the app lays it out.",
      inputSchema: { machineId: z.string() },
    },
    ({ machineId }) =>
      answer(async () => {
        const { definition } = await current(machineId);
        return machineSvg(definition);
      }),
  );

  server.registerTool(
    'generate_paths',
    {
      description:
        'Test paths through the machine, as the Tests panel generates them: "shortest" (one to every state), "cover" (every transition) or "simple" (every path to `target`, a state path like "a.b"). Answers one path a line, in words.',
      inputSchema: {
        machineId: z.string(),
        kind: z.enum(['shortest', 'cover', 'simple']).default('shortest'),
        target: z.string().optional(),
      },
    },
    ({ machineId, kind, target }) =>
      answer(async () => {
        const { definition } = await current(machineId);
        const { paths, error } = generatePaths(definition, kind, target ?? null);
        if (error !== null) throw new CliError(error);
        return [`${paths.length} ${kind} path(s):`, ...paths.map((p, i) => `${i + 1}. ${p.words}`)].join('\n');
      }),
  );

  server.registerTool(
    'start_simulation',
    {
      description:
        "Starts a shared simulation of the machine's current version (everyone in the room sees it); answers its id and where it stands.",
      inputSchema: { machineId: z.string() },
    },
    ({ machineId }) =>
      answer(async () => {
        const record = sim(await room.simulations.start({ machineId, context: null, guards: {} }));
        presence.join(machineId);
        const step = await simulationState(room, record);
        return `simulation ${record.id} started on version ${record.machineVersion}\n${stateLine(step)}`;
      }),
  );

  server.registerTool(
    'send_event',
    {
      description:
        'Sends an event to a simulation of the machine (by default its newest running one) and answers where it stands after it, or why the event did nothing.',
      inputSchema: {
        machineId: z.string(),
        type: z.string().describe('the event type, e.g. OPEN'),
        payload: z.record(z.string(), z.unknown()).optional().describe("the event's other fields"),
        simulationId: z
          .string()
          .optional()
          .describe('a simulation from start_simulation; default: the newest running one'),
      },
    },
    ({ machineId, type, payload, simulationId }) =>
      answer(async () => {
        const running = sim(await room.simulations.list(machineId)).filter((s) => s.status === 'running');
        const record = simulationId ? running.find((s) => s.id === simulationId) : running[0];
        if (!record)
          throw new CliError(
            simulationId
              ? `no running simulation ${simulationId} on this machine`
              : 'no running simulation on this machine: start_simulation first',
          );
        const { seq } = sim(
          await room.simulations.send({
            simulationId: record.id,
            kind: 'event',
            type,
            payload: (payload ?? {}) as JsonObject,
            guards: record.guards,
          }),
        );
        const step = await simulationState(room, record);
        const ignored = step.seq === seq && step.ignored ? ` but did nothing (${step.ignored})` : '';
        return `event ${seq} (${type}) sent${ignored}\n${stateLine(step)}`;
      }),
  );

  return server;
}

/** Serves the tools on stdin/stdout until the client closes the stream (or `stopped` resolves). */
export async function serveStdio(room: Room, stopped: Promise<void>): Promise<void> {
  const server = chartroomMcpServer(room);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await Promise.race([closed, stopped]);
  await server.close();
}
