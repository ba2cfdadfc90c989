import fs from 'node:fs/promises';
import path from 'node:path';
import { concat, NEVER, of, Subject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import type { Room } from '../../src/cli/room.ts';
import { Watcher } from '../../src/cli/watch.ts';
import { importTypeScript } from '../../src/lib/convert/ts-import.ts';
import { writeBackTypeScript } from '../../src/lib/convert/ts-write-back.ts';
import { applyOp } from '../../src/lib/model/index.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { OpStreamEvent } from '../../src/lib/ports/document.ts';
import { TOGGLE } from '../lib/convert/toggle-source.ts';
import { signedInClient } from '../setup/clients.ts';
import { runIn, startIn, tempRepo, type CliResult } from './harness.ts';

/** `chartroom watch`: a file and its room machine kept in step, driven in-process against the real backend. */

let repo: string;
let done: () => Promise<void>;
let person: Awaited<ReturnType<typeof signedInClient>>;
let machineId: string;

const cli = (...argv: string[]): Promise<CliResult> => runIn(repo, argv);

/** The room's current definition, folded as every client folds it. */
async function roomNow(): Promise<MachineDefinition> {
  const loaded = await createMachinesAdapter(person.client as never).loadMachine(machineId);
  if (!loaded.ok) throw new Error(loaded.error.message);
  let current = loaded.value.definition;
  for (const { op } of loaded.value.tail) current = chartroomModel.resolve!(current, op).doc;
  return current;
}

const events = (def: MachineDefinition): string[] =>
  Object.values(def.transitions).map((t) => (typeof t.event === 'string' ? t.event : ''));

beforeAll(async () => {
  ({ dir: repo, done } = await tempRepo('chartroom-watch-'));
  person = await signedInClient('watch');
  const { data, error } = await person.client.from('projects').insert({ name: 'Watch' }).select('id').single();
  if (error) throw error;
  await fs.writeFile(path.join(repo, 'toggle.ts'), TOGGLE);
  expect((await cli('login', '--email', person.email, '--password', person.password)).code).toBe(0);
  expect((await cli('push', 'toggle.ts', '--project', data.id as string)).code).toBe(0);
  const links = JSON.parse(await fs.readFile(path.join(repo, 'chartroom.json'), 'utf8')) as {
    machines: { machineId: string }[];
  };
  machineId = links.machines[0]!.machineId;
});

afterAll(async () => {
  await done();
});

describe('chartroom watch', () => {
  it('sends a saved file to the room, writes a change in the room into the file, and stops on Ctrl-C', async () => {
    const file = path.join(repo, 'toggle.ts');
    const watch = startIn(repo, ['watch', 'toggle.ts']);
    await expect.poll(() => watch.out.join('\n'), { timeout: 20_000 }).toContain('watching toggle.ts');

    // Saving the file: the room gets the renamed event.
    const edited = TOGGLE.replace("TOGGLE: 'off', // back", "FLIP: 'off', // back");
    await fs.writeFile(file, edited);
    await expect.poll(async () => events(await roomNow()), { timeout: 20_000 }).toContain('FLIP');

    // A change in the room, through the app's adapter: the file gets it, written back in place.
    const current = await roomNow();
    const on = Object.values(current.states).find((s) => s.key === 'on')!;
    const committed = await createMachinesAdapter(person.client as never).commitOps({
      machineId,
      clientId: 'peer',
      batchId: crypto.randomUUID(),
      ops: [{ type: 'state.rename', id: on.id, key: 'active' }],
    });
    expect(committed.ok).toBe(true);
    await expect.poll(() => fs.readFile(file, 'utf8'), { timeout: 20_000 }).toContain('    active: {\n');
    expect(await fs.readFile(file, 'utf8')).toBe(
      edited
        .replace("target: 'on'", "target: 'active'")
        .replace('    on: {\n      entry', '    active: {\n      entry'),
    );

    const stopped = await watch.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.out).toContain('toggle.ts: stopped watching');
    expect(stopped.err).not.toContain("lost the room's stream");
    expect((await fs.readdir(repo)).filter((f) => f.includes('.local-') || f.endsWith('.tmp'))).toEqual([]);
  });

  it('says which file and why, before it watches anything', async () => {
    expect((await cli('watch')).code).toBe(2);
    expect((await cli('watch', 'nowhere.ts')).err).toBe(
      'chartroom watch: nowhere.ts is not linked to a machine: push it first, or pass --machine',
    );
  });

  it('when the file and the room both changed, the room wins and the local text is kept beside it', async () => {
    // A room that changes without telling (its stream only says it is live), so the next
    // save finds both sides changed since the last sync.
    await fs.mkdir(path.join(repo, 'both'));
    const file = path.join(repo, 'both', 'toggle.ts');
    await fs.writeFile(file, TOGGLE);
    let definition = importTypeScript(TOGGLE).definition!;
    const room = {
      current: () => Promise.resolve({ definition, projectId: 'p', name: 'toggle', version: 2 }),
      push: () => Promise.reject(new Error('a conflict pushes nothing')),
      opEvents$: () => concat(of<OpStreamEvent>({ type: 'ops.subscribed' }), NEVER),
    } as unknown as Room;
    const out: string[] = [];
    const watcher = new Watcher({
      room,
      machineId: 'm',
      file: 'toggle.ts',
      absolute: file,
      importFile: () => Promise.resolve(importTypeScript(TOGGLE).definition!),
      fileText: (previous, def) => {
        const written = writeBackTypeScript(previous, def, 'toggle.ts');
        if (!written.ok) throw new Error(written.error);
        return written.text;
      },
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
    await watcher.start();
    const on = Object.values(definition.states).find((s) => s.key === 'on')!;
    definition = applyOp(definition, { type: 'state.rename', id: on.id, key: 'active' });
    const local = TOGGLE.replace('// back', '// back to off');
    await fs.writeFile(file, local);
    await expect.poll(() => out.join('\n'), { timeout: 20_000 }).toContain('the room wins');
    await watcher.stop();
    // The room's machine, written back into the local text: what lies outside the room's change stays.
    expect(await fs.readFile(file, 'utf8')).toBe(
      local.replace("target: 'on'", "target: 'active'").replace('    on: {\n      entry', '    active: {\n      entry'),
    );
    const kept = (await fs.readdir(path.dirname(file))).filter((f) => f.startsWith('toggle.ts.local-'));
    expect(kept).toHaveLength(1);
    expect(await fs.readFile(path.join(path.dirname(file), kept[0]!), 'utf8')).toBe(local);
    expect(out.join('\n')).toContain(`your edit is kept in ${kept[0]}`);
  });
  it('pulls a change in the room that lands just after its own push', async () => {
    // The room takes the saved file, and a peer's edit lands before the watcher could read
    // the room again: that edit must still reach the file.
    await fs.mkdir(path.join(repo, 'race'));
    const file = path.join(repo, 'race', 'toggle.ts');
    await fs.writeFile(file, TOGGLE);
    let definition = importTypeScript(TOGGLE).definition!;
    const stream = new Subject<OpStreamEvent>();
    const saved = TOGGLE.replace("TOGGLE: 'off', // back", "FLIP: 'off', // back");
    const room = {
      current: () => Promise.resolve({ definition, projectId: 'p', name: 'toggle', version: 2 }),
      push: (_: string, next: MachineDefinition) => {
        const pushed = next;
        const on = Object.values(next.states).find((s) => s.key === 'on')!;
        definition = applyOp(next, { type: 'state.rename', id: on.id, key: 'active' });
        queueMicrotask(() => stream.next({ type: 'ops.subscribed' }));
        return Promise.resolve({ ops: 1, version: 3, touched: [], definition: pushed });
      },
      opEvents$: () => concat(of<OpStreamEvent>({ type: 'ops.subscribed' }), stream),
    } as unknown as Room;
    const out: string[] = [];
    const watcher = new Watcher({
      room,
      machineId: 'm',
      file: 'toggle.ts',
      absolute: file,
      importFile: (_, text) => {
        const imported = importTypeScript(text).definition;
        return imported ? Promise.resolve(imported) : Promise.reject(new Error('half saved'));
      },
      fileText: (previous, def) => {
        const written = writeBackTypeScript(previous, def, 'toggle.ts');
        if (!written.ok) throw new Error(written.error);
        return written.text;
      },
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
    await watcher.start();
    await fs.writeFile(file, saved);
    await expect.poll(() => out.join('\n'), { timeout: 20_000 }).toContain('written from the room');
    await watcher.stop();
    expect(await fs.readFile(file, 'utf8')).toBe(
      saved.replace("target: 'on'", "target: 'active'").replace('    on: {\n      entry', '    active: {\n      entry'),
    );
  });
});
