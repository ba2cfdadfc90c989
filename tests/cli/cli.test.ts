import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import { SESSION_FILE } from '../../src/cli/session.ts';
import { importTypeScript } from '../../src/lib/convert/ts-import.ts';
import { applyOp, exportXState } from '../../src/lib/model/index.ts';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import { TOGGLE } from '../lib/convert/toggle-source.ts';
import { signedInClient } from '../setup/clients.ts';
import { runIn, tempRepo, type CliResult } from './harness.ts';

/** The `chartroom` command against the real backend, with a temporary folder as the user's repository. */

let repo: string;
let person: Awaited<ReturnType<typeof signedInClient>>;
let projectId: string;
let done: () => Promise<void>;

const cli = (...argv: string[]): Promise<CliResult> => runIn(repo, argv);

beforeAll(async () => {
  ({ dir: repo, done } = await tempRepo('chartroom-cli-'));
  person = await signedInClient('cli');
  const { data, error } = await person.client.from('projects').insert({ name: 'CLI project' }).select('id').single();
  if (error) throw error;
  projectId = data.id as string;
});

afterAll(async () => {
  await done();
});

describe('chartroom, the command', () => {
  it('refuses to work before login, with the reason in one line', async () => {
    const r = await cli('projects');
    expect(r.code).toBe(1);
    expect(r.err).toBe('chartroom projects: not signed in: run `chartroom login` first');
  });

  it('says why a login failed, and signs in with the right password', async () => {
    const wrong = await cli('login', '--email', person.email, '--password', 'not-it');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/^chartroom login: sign-in failed/);
    const ok = await cli('login', '--email', person.email, '--password', person.password);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`signed in as ${person.email}`);
    const stat = await fs.stat(path.join(repo, SESSION_FILE));
    expect(stat.mode & 0o777).toBe(0o600);
    const projects = await cli('projects');
    expect(projects.code).toBe(0);
    expect(projects.out).toContain(`${projectId}  owner   CLI project`);
  });

  it('push, a change in the room, diff, pull: only the config changes in the file', async () => {
    const file = path.join(repo, 'toggle.ts');
    await fs.writeFile(file, TOGGLE);
    const pushed = await cli('push', 'toggle.ts', '--project', projectId);
    expect(pushed.code).toBe(0);
    const link = JSON.parse(await fs.readFile(path.join(repo, 'chartroom.json'), 'utf8')) as {
      machines: { file: string; machineId: string }[];
    };
    expect(link.machines.map((m) => m.file)).toEqual(['toggle.ts']);
    const machineId = link.machines[0]!.machineId;
    expect((await cli('machines', '--project', projectId)).out).toContain(machineId);
    const same = await cli('diff', 'toggle.ts');
    expect(same).toMatchObject({ code: 0, out: 'toggle.ts: same as the room' });
    // The inline assign is kept as a placeholder with its source, and the command says where.
    expect(same.err).toMatch(/^toggle\.ts:15:\d+: the call assign\(\.\.\.\) is kept as a placeholder/);
    expect((await cli('push', 'toggle.ts')).out).toBe('toggle.ts: the room is up to date');

    // Someone in the room renames `on` to `active`, through the app's own adapter.
    const machines = createMachinesAdapter(person.client as never);
    const loaded = await machines.loadMachine(machineId);
    if (!loaded.ok) throw new Error(loaded.error.message);
    let current = loaded.value.definition;
    for (const { op } of loaded.value.tail) current = chartroomModel.resolve!(current, op).doc;
    const on = Object.values(current.states).find((s) => s.key === 'on')!;
    const renamed = { type: 'state.rename', id: on.id, key: 'active' } as const;
    const committed = await machines.commitOps({
      machineId,
      clientId: 'peer',
      batchId: crypto.randomUUID(),
      ops: [renamed],
    });
    expect(committed.ok).toBe(true);
    const edited = applyOp(current, renamed);

    const diff = await cli('diff', 'toggle.ts');
    expect(diff.code).toBe(1);
    expect(diff.out).toContain('`TOGGLE` from `off` now goes to `active`');

    expect((await cli('pull', 'toggle.ts')).code).toBe(0);
    const text = await fs.readFile(file, 'utf8');
    expect(text).toBe(
      TOGGLE.replace("target: 'on'", "target: 'active'").replace(
        '    on: {\n      entry',
        '    active: {\n      entry',
      ),
    );
    expect(exportXState(importTypeScript(text).definition!)).toEqual(exportXState(edited));
    expect(await cli('diff', 'toggle.ts')).toMatchObject({ code: 0, out: 'toggle.ts: same as the room' });
  });

  it('never touches a file it cannot read, and says where it broke', async () => {
    const file = path.join(repo, 'broken.ts');
    const broken = 'export const m = createMachine({ initial: "a", states: { a: { on: { GO: } } } });\n';
    await fs.writeFile(file, broken);
    const r = await cli('push', 'broken.ts', '--project', projectId);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^chartroom push: broken\.ts:1:\d+: /);
    expect(await fs.readFile(file, 'utf8')).toBe(broken);
    expect((await cli('pull', 'missing.ts')).err).toBe(
      'chartroom pull: missing.ts is not linked to a machine: push it first, or pass --machine',
    );
    expect((await cli('push')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
  });

  it('says when the backend cannot be reached', async () => {
    const previous = process.env.CHARTROOM_API_URL;
    process.env.CHARTROOM_API_URL = 'http://127.0.0.1:9';
    try {
      const r = await cli('login', '--email', person.email, '--password', person.password);
      expect(r.code).toBe(1);
      expect(r.err).toBe(
        'chartroom login: cannot reach Chartroom at http://127.0.0.1:9 (is the backend running? npm start)',
      );
    } finally {
      process.env.CHARTROOM_API_URL = previous;
    }
  });

  it('has help for every command, and runs as `chartroom` through its launcher', async () => {
    for (const name of ['login', 'projects', 'machines', 'push', 'pull', 'diff']) {
      const r = await cli(name, '--help');
      expect(r.code, name).toBe(0);
      expect(r.out, name).toContain(`chartroom ${name}`);
    }
    const { stdout } = await promisify(execFile)(process.execPath, ['src/cli/bin.mjs', '--help']);
    expect(stdout).toContain('Commands:');
    const failed = await promisify(execFile)(process.execPath, ['src/cli/bin.mjs', 'nope']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed).toMatchObject({ code: 2 });
  });
});
