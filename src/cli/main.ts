import path from 'node:path';
import { parseArgs } from 'node:util';
import { readModule } from './modules.ts';
import { detectFormat, exportJson, exportScxml, exportTypeScript, importText } from '../lib/convert/index.ts';
import { writeBackTypeScript } from '../lib/convert/ts-write-back.ts';
import { describeDiff } from '../lib/canvas-ops/describe-diff.ts';
import { exportXState } from '../lib/model/export.ts';
import type { MachineDefinition } from '../lib/model/types.ts';
import { CliError, Links, readText, writeAtomic } from './files.ts';
import { serveStdio } from './mcp.ts';
import { renderFile } from './render.ts';
import { Room } from './room.ts';
import { Session } from './session.ts';
import { Watcher } from './watch.ts';

const HELP: Record<string, string> = {
  '': `chartroom: your machines' code and the room, kept in step

Commands:
  login      sign in (the session is kept in this folder)
  projects   list your projects
  machines   list a project's machines
  push       send a file's machine into the room
  pull       write the room's machine back into its file
  diff       what differs between a file and the room (exit 1 when anything does)
  watch      keep a file and its room machine in step while it runs
  render     draw a machine as an SVG file, laid out as the app lays it out
  mcp        serve these abilities to a coding agent (Model Context Protocol, stdio)

Run \`chartroom <command> --help\` for its options. The backend is the embedded one
(http://127.0.0.1:54321) unless VITE_SUPABASE_URL and VITE_SUPABASE_ANON_KEY name another.`,
  login: `chartroom login --email EMAIL [--password PASSWORD] | --token ACCESS_TOKEN
  Signs in and keeps the session in .chartroom-session.json here (keep it out of git).
  The password may also come from CHARTROOM_PASSWORD.`,
  projects: `chartroom projects
  Lists the projects you are in: id, your role, name.`,
  machines: `chartroom machines --project PROJECT_ID
  Lists a project's machines: id, version, name.`,
  push: `chartroom push FILE [--project PROJECT_ID] [--machine MACHINE_ID] [--name NAME]
  Imports the machine in FILE (XState TypeScript or JSON, SCXML) and sends it to the room:
  as ops on the machine it was pushed to before (recorded in chartroom.json) or on
  --machine, else as a new machine in --project.`,
  pull: `chartroom pull FILE [--machine MACHINE_ID]
  Writes the room's current machine into FILE. A TypeScript file keeps everything but the
  machine's config, and the config's unchanged parts, byte for byte.`,
  diff: `chartroom diff FILE [--machine MACHINE_ID]
  Lists what the room has that FILE does not, in words; exit code 1 when they differ.`,
  watch: `chartroom watch FILE [--machine MACHINE_ID]
  Keeps FILE and the machine it was pushed to in step until Ctrl-C: saving FILE sends its
  change to the room as ops (as push does); a change in the room rewrites FILE (as pull
  does). When both changed since the last sync, the room's machine wins: it is written back
  into your text, and your version as it was is kept beside it as FILE.local-<time>.`,
  render: `chartroom render FILE | --machine MACHINE_ID [--svg | --png] [--out OUT]
  Draws the machine in FILE (or the room's current version of MACHINE_ID) as a standalone
  SVG file (--svg, the default) or a PNG image (--png, drawn from the same SVG at twice
  its size), laid out as the app lays it out, and prints its path. --out defaults to FILE
  with .svg or .png, or MACHINE_ID.svg or .png.`,
  mcp: `chartroom mcp
  A Model Context Protocol server on stdin/stdout, signed in as the session stored here
  (chartroom login first): an agent can do what you may do, and no more. Tools:
  list_projects, list_machines, read_machine (TypeScript or JSON), apply_machine (a
  source sent to the room as ops), diff_machine (in words), render_machine (SVG text),
  start_simulation and send_event (a shared simulation, as the app's panel runs it).
  The agent joins the canvas of each machine it works on as you (one more connection of
  yours), so the team sees it there.
  In an agent's MCP config: { "command": "npx", "args": ["chartroom", "mcp"] }, run in
  the folder you signed in from.`,
};

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  email: { type: 'string' },
  password: { type: 'string' },
  token: { type: 'string' },
  project: { type: 'string' },
  machine: { type: 'string' },
  name: { type: 'string' },
  out: { type: 'string' },
  svg: { type: 'boolean' },
  png: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  cwd: string;
  /** Ends a long-running command (watch) as Ctrl-C does; tests use it in-process. */
  signal?: AbortSignal;
}

/** Resolves at Ctrl-C (SIGINT) or when `signal` aborts, whichever comes first. */
function interrupted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    process.on('SIGINT', done);
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done);
  });
}

function fileArg(positionals: string[], command: string): string {
  const file = positionals[0];
  if (!file) throw new CliError(`${command}: which file? (chartroom ${command} --help)`, 2);
  return file;
}

/** A file named on the command line, from the folder the command runs in. */
const inCwd = (io: Io, file: string): string => path.resolve(io.cwd, file);

async function importFile(file: string, io: Io, read?: string): Promise<MachineDefinition> {
  const text = read ?? (await readText(inCwd(io, file)));
  // Helpers and constants the file imports from its own folder are read there.
  const result = importText(text, inCwd(io, file), { resolveModule: readModule });
  const errors = result.issues.filter((i) => i.severity === 'error');
  if (result.definition === null || errors.length > 0) {
    const first = errors[0];
    const where = first?.at ? `${file}:${first.at.line}:${first.at.column}: ` : `${file}: `;
    throw new CliError(`${where}${first?.message ?? 'no machine found'}`);
  }
  // What the import kept as a placeholder or left out, each where it stands (the first few).
  const warnings = result.issues.filter((i) => i.severity === 'warning');
  for (const w of warnings.slice(0, 5)) io.err(`${file}:${w.at ? `${w.at.line}:${w.at.column}:` : ''} ${w.message}`);
  if (warnings.length > 5) io.err(`${file}: and ${warnings.length - 5} more`);
  return result.definition;
}

async function machineFor(file: string, values: Values, io: Io): Promise<{ machineId: string; links: Links }> {
  const links = await Links.load(io.cwd);
  const machineId = values.machine ?? links.find(inCwd(io, file))?.machineId;
  if (!machineId) throw new CliError(`${file} is not linked to a machine: push it first, or pass --machine`);
  return { machineId, links };
}

/** The file's new text for the room's definition, in the file's own format. */
function fileText(file: string, previous: string | null, definition: MachineDefinition): string {
  const format = detectFormat(previous ?? '', file);
  if (format === 'json') return exportJson(definition);
  if (format === 'scxml') return exportScxml(definition);
  if (previous === null) return exportTypeScript(definition);
  const written = writeBackTypeScript(previous, definition, path.basename(file));
  if (!written.ok) throw new CliError(`${file}: ${written.error}`);
  return written.text;
}

async function withSession<T>(io: Io, run: (session: Session, room: Room) => Promise<T>): Promise<T> {
  const session = await Session.resume(io.cwd);
  try {
    return await run(session, new Room(session));
  } finally {
    await session.close();
  }
}

async function command(name: string, values: Values, positionals: string[], io: Io): Promise<number> {
  switch (name) {
    case 'login': {
      const session = values.token
        ? await Session.login(io.cwd, { token: values.token })
        : await Session.login(io.cwd, {
            email: values.email ?? '',
            password: values.password ?? process.env.CHARTROOM_PASSWORD ?? '',
          });
      io.out(`signed in as ${session.email ?? session.userId} at ${session.config.url}`);
      await session.close();
      return 0;
    }
    case 'projects':
      return withSession(io, async (_, room) => {
        for (const p of await room.listProjects()) io.out(`${p.id}  ${p.role.padEnd(6)}  ${p.name}`);
        return 0;
      });
    case 'machines': {
      const project = values.project;
      if (!project) throw new CliError('machines: which project? (--project PROJECT_ID)', 2);
      return withSession(io, async (_, room) => {
        for (const m of await room.listMachines(project)) io.out(`${m.id}  v${String(m.version).padEnd(5)}  ${m.name}`);
        return 0;
      });
    }
    case 'push': {
      const file = fileArg(positionals, 'push');
      const definition = await importFile(file, io);
      return withSession(io, async (_, room) => {
        const links = await Links.load(io.cwd);
        const machineId = values.machine ?? links.find(inCwd(io, file))?.machineId;
        if (machineId) {
          const { projectId } = await room.current(machineId);
          const pushed = await room.push(machineId, definition);
          await links.save(inCwd(io, file), machineId, projectId);
          io.out(
            pushed.ops === 0
              ? `${file}: the room is up to date`
              : `${file}: ${pushed.ops} op(s) sent, now at version ${pushed.version}`,
          );
          return 0;
        }
        const projectId = values.project;
        if (!projectId)
          throw new CliError(`${file} is not linked to a machine yet: pass --project PROJECT_ID (or --machine)`, 2);
        const name = values.name ?? definition.name ?? path.basename(file).replace(/\.[^.]+$/, '');
        const created = await room.create(projectId, name, definition);
        await links.save(inCwd(io, file), created.id, projectId);
        io.out(`${file}: new machine ${created.id} "${created.name}"`);
        return 0;
      });
    }
    case 'pull': {
      const file = fileArg(positionals, 'pull');
      const { machineId } = await machineFor(file, values, io);
      let previous: string | null = null;
      try {
        previous = await readText(inCwd(io, file));
      } catch {
        previous = null;
      }
      return withSession(io, async (_, room) => {
        const { definition } = await room.current(machineId);
        const text = fileText(file, previous, definition);
        if (text === previous) {
          io.out(`${file}: already up to date`);
          return 0;
        }
        await writeAtomic(inCwd(io, file), text);
        io.out(`${file}: written from the room`);
        return 0;
      });
    }
    case 'diff': {
      const file = fileArg(positionals, 'diff');
      const local = await importFile(file, io);
      const { machineId } = await machineFor(file, values, io);
      return withSession(io, async (_, room) => {
        const { definition } = await room.current(machineId);
        if (JSON.stringify(exportXState(local)) === JSON.stringify(exportXState(definition))) {
          io.out(`${file}: same as the room`);
          return 0;
        }
        const changes = describeDiff(local, definition);
        io.out(`${file} differs from the room (${changes.length} change(s); the room has):`);
        for (const c of changes) io.out(`  ${c.text}`);
        return 1;
      });
    }
    case 'watch': {
      const file = fileArg(positionals, 'watch');
      const { machineId } = await machineFor(file, values, io);
      return withSession(io, async (_, room) => {
        const watcher = new Watcher({
          room,
          machineId,
          file,
          absolute: inCwd(io, file),
          importFile: (f, text) => importFile(f, io, text),
          fileText: (previous, definition) => fileText(file, previous, definition),
          out: io.out,
          err: io.err,
        });
        await watcher.start();
        io.out(`watching ${file} and machine ${machineId} (Ctrl-C stops)`);
        await interrupted(io.signal);
        await watcher.stop();
        io.out(`${file}: stopped watching`);
        return 0;
      });
    }
    case 'render': {
      if (values.svg && values.png) throw new CliError('render: --svg or --png, not both', 2);
      const format = values.png ? 'png' : 'svg';
      const file = positionals[0];
      if (file !== undefined) {
        const definition = await importFile(file, io);
        const out = values.out ?? `${file.replace(/\.[^./\\]+$/, '')}.${format}`;
        await renderFile(definition, inCwd(io, out), format);
        io.out(out);
        return 0;
      }
      const machineId = values.machine;
      if (!machineId) throw new CliError('render: which file or machine? (chartroom render --help)', 2);
      return withSession(io, async (_, room) => {
        const { definition } = await room.current(machineId);
        const out = values.out ?? `${machineId}.${format}`;
        await renderFile(definition, inCwd(io, out), format);
        io.out(out);
        return 0;
      });
    }
    case 'mcp':
      // stdout is the protocol's: nothing else is written there.
      return withSession(io, async (_, room) => {
        await serveStdio(room, interrupted(io.signal));
        return 0;
      });
    default:
      throw new CliError(`unknown command "${name}" (chartroom --help)`, 2);
  }
}

/** Runs one command line; answers the exit code. Failures are one line on stderr, never a stack. */
export async function run(
  argv: string[],
  io: Io = { out: (l) => console.log(l), err: (l) => console.error(l), cwd: process.cwd() },
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`chartroom: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const [name = '', ...rest] = parsed.positionals;
  if (parsed.values.help || name === '' || name === 'help') {
    const topic = name === 'help' ? (rest[0] ?? '') : name;
    io.out(HELP[topic] ?? HELP['']!);
    return name === '' && !parsed.values.help ? 2 : 0;
  }
  try {
    return await command(name, parsed.values, rest, io);
  } catch (error) {
    io.err(`chartroom ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof CliError ? error.code : 1;
  }
}
