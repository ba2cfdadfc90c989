import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMachinesAdapter } from '../../src/adapters/supabase/machines.ts';
import { chartroomMcpServer } from '../../src/cli/mcp.ts';
import { Room } from '../../src/cli/room.ts';
import { Session } from '../../src/cli/session.ts';
import { exportTypeScript } from '../../src/lib/convert/ts-export.ts';
import { applyOps } from '../../src/lib/model/apply.ts';
import { addChildState } from '../../src/lib/model/recipes.ts';
import { chartroomModel } from '../../src/lib/collab/chartroom.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import { runIn, startIn, tempRepo } from '../cli/harness.ts';
import { TOGGLE } from '../lib/convert/toggle-source.ts';
import { useBrowserApp } from './harness.ts';
import { openMachinePage, synced } from './machine-page.ts';
import { createProject, signUpPerson, type SignedUp } from './people.ts';

/**
 * `chartroom watch` with a browser peer: Ada's file is linked to a machine and watched in
 * process (a temporary folder stands for her repository); Bo, a member, has the machine's
 * page open in Chromium. A save reaches Bo's diagram; Bo's change reaches the file on disk.
 */

const app = useBrowserApp({ timeout: 180_000 });

let repo: string;
let done: () => Promise<void>;
let ada: SignedUp;
let bo: SignedUp;
let projectId: string;
let machineId: string;

beforeAll(async () => {
  ({ dir: repo, done } = await tempRepo('chartroom-watch-e2e-'));
  [ada, bo] = await Promise.all([signUpPerson('cli-watch', 'Ada'), signUpPerson('cli-watch', 'Bo')]);
  projectId = await createProject(ada.client, 'Watched', [{ id: bo.id, role: 'editor' }]);
  await fs.writeFile(path.join(repo, 'toggle.ts'), TOGGLE);
  expect((await runIn(repo, ['login', '--email', ada.email, '--password', 'correct-horse-battery'])).code).toBe(0);
  expect((await runIn(repo, ['push', 'toggle.ts', '--project', projectId])).code).toBe(0);
  const links = JSON.parse(await fs.readFile(path.join(repo, 'chartroom.json'), 'utf8')) as {
    machines: { machineId: string }[];
  };
  machineId = links.machines[0]!.machineId;
}, 60_000);

afterAll(async () => {
  await done();
});

/** The room's current definition as Bo's client folds it. */
async function roomNow(): Promise<MachineDefinition> {
  const loaded = await createMachinesAdapter(bo.client).loadMachine(machineId);
  if (!loaded.ok) throw new Error(loaded.error.message);
  let current = loaded.value.definition;
  for (const { op } of loaded.value.tail) current = chartroomModel.resolve!(current, op).doc;
  return current;
}

describe('chartroom watch with a browser peer', () => {
  it("a save shows on the peer's diagram, and the peer's change lands in the file", async () => {
    const file = path.join(repo, 'toggle.ts');
    const watch = startIn(repo, ['watch', 'toggle.ts']);
    await expect.poll(() => watch.out.join('\n'), { timeout: 20_000 }).toContain('watching toggle.ts');

    const { page } = await app.signIn(bo.email, { viewport: { width: 1280, height: 800 } });
    await openMachinePage(app, page, projectId, machineId, 'off');
    await synced(page);

    // Ada saves a new state in her file: Bo's diagram draws it.
    const saved = TOGGLE.replace('    },\n  },\n});', '    },\n    paused: {},\n  },\n});');
    expect(saved).not.toBe(TOGGLE);
    await fs.writeFile(file, saved);
    await page.locator('[data-state-path="paused"]').waitFor({ timeout: 30_000 });

    // Bo renames it (an op committed as Bo through the app's adapter): Ada's file has it.
    const paused = Object.values((await roomNow()).states).find((s) => s.key === 'paused')!;
    const committed = await createMachinesAdapter(bo.client).commitOps({
      machineId,
      clientId: 'bo-peer',
      batchId: crypto.randomUUID(),
      ops: [{ type: 'state.rename', id: paused.id, key: 'waiting' }],
    });
    expect(committed.ok).toBe(true);
    await expect.poll(() => fs.readFile(file, 'utf8'), { timeout: 30_000 }).toContain('    waiting: {},\n');
    await page.locator('[data-state-path="waiting"]').waitFor({ timeout: 30_000 });
    // Only the machine's config changed: the rest of Ada's file stays as she wrote it.
    expect(await fs.readFile(file, 'utf8')).toBe(saved.replace('    paused: {},\n', '    waiting: {},\n'));

    const stopped = await watch.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.out).toContain('toggle.ts: stopped watching');
  });

  it("an agent's edit through `chartroom mcp` shows on the peer's diagram at once", async () => {
    // The agent works as Ada (her stored session), over the SDK's own client.
    const session = await Session.resume(repo);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = chartroomMcpServer(new Room(session));
    await server.connect(serverSide);
    const agent = new Client({ name: 'e2e-agent', version: '0' });
    await agent.connect(clientSide);
    try {
      const { page } = await app.signIn(bo.email, { viewport: { width: 1280, height: 800 } });
      await openMachinePage(app, page, projectId, machineId, 'off');
      await synced(page);

      const now = await roomNow();
      const definition = applyOps(now, addChildState(now, now.root, { key: 'byAgent' }).ops);
      const applied = (await agent.callTool({
        name: 'apply_machine',
        arguments: { machineId, source: exportTypeScript(definition), format: 'typescript' },
      })) as CallToolResult;
      expect(applied.isError).not.toBe(true);
      await page.locator('[data-state-path="byAgent"]').waitFor({ timeout: 30_000 });
      // The agent is on the canvas as Ada's agent (apart from Ada), its cursor on what it changed.
      const peersHere = page.getByRole('list', { name: 'On this machine' });
      await peersHere.getByRole('img', { name: /'s agent$/ }).waitFor({ timeout: 30_000 });
      const cursor = page.locator('.peer-cursor[data-agent="true"]');
      await cursor.waitFor({ timeout: 30_000 });
      expect(await cursor.textContent()).toMatch(/'s agent$/);
      // Drawn over the state it added.
      const box = await page.locator('[data-state-path="byAgent"] .st-box').first().boundingBox();
      const tip = await cursor.boundingBox();
      expect(box && tip && tip.x >= box.x && tip.x <= box.x + box.width + 1).toBe(true);
      expect(box && tip && tip.y >= box.y && tip.y <= box.y + box.height).toBe(true);
    } finally {
      await agent.close();
      await server.close();
      await session.close();
    }
  });
});
