import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeXml } from '../../src/lib/render/svg.ts';
import { signedInClient } from '../setup/clients.ts';
import { runIn, tempRepo, type CliResult } from './harness.ts';

/** `chartroom render`: a file's or a room machine's diagram as a standalone SVG file. */

let repo: string;
let projectId: string;
let done: () => Promise<void>;

const cli = (...argv: string[]): Promise<CliResult> => runIn(repo, argv);

/** Compound, parallel, final and history states, a guard and actions, and names XML must escape. */
const CHART = `import { createMachine } from 'xstate';

export const player = createMachine({
  id: 'player',
  initial: 'idle',
  states: {
    idle: { on: { 'LOAD<url>': 'loading' } },
    loading: {
      entry: ['showSpinner'],
      on: { 'LOADED & ready': 'playing', FAIL: { target: 'failed', guard: 'canRetry', actions: ['log'] } },
    },
    playing: {
      type: 'parallel',
      states: {
        audio: { initial: 'on', states: { on: { on: { MUTE: 'off' } }, off: { on: { UNMUTE: 'on' } } } },
        video: {
          initial: 'shown',
          states: { shown: { on: { HIDE: 'hidden' } }, hidden: { on: { SHOW: 'shown' } }, hist: { type: 'history' } },
        },
      },
      on: { STOP: 'done' },
    },
    failed: { tags: ['error'], on: { RETRY: 'loading' } },
    done: { type: 'final' },
  },
});
`;
const STATES = ['idle', 'loading', 'playing', 'audio', 'on', 'off', 'video', 'shown', 'hidden', 'failed', 'done'];
const EVENTS = ['LOAD<url>', 'LOADED & ready', 'FAIL', 'MUTE', 'UNMUTE', 'HIDE', 'SHOW', 'STOP', 'RETRY'];

async function checkSvg(file: string): Promise<string> {
  const svg = await fs.readFile(file, 'utf8');
  // librsvg (through sharp) parses the document as XML and draws it.
  const meta = await sharp(Buffer.from(svg)).metadata();
  expect(meta.format).toBe('svg');
  expect(meta.width).toBeGreaterThan(100);
  expect(svg).not.toContain('NaN');
  expect(svg).not.toContain('undefined');
  for (const name of [...STATES, ...EVENTS]) expect(svg).toContain(`>${escapeXml(name)}<`);
  return svg;
}

beforeAll(async () => {
  ({ dir: repo, done } = await tempRepo('chartroom-render-'));
  const person = await signedInClient('render');
  const { data, error } = await person.client.from('projects').insert({ name: 'Render' }).select('id').single();
  if (error) throw error;
  projectId = data.id as string;
  await fs.writeFile(path.join(repo, 'player.ts'), CHART);
  expect((await cli('login', '--email', person.email, '--password', person.password)).code).toBe(0);
});

afterAll(async () => {
  await done();
});

describe('chartroom render', () => {
  it('draws a file as an SVG beside it, with every state and event, and prints its path', async () => {
    const r = await cli('render', 'player.ts');
    expect(r).toMatchObject({ code: 0, out: 'player.svg' });
    const svg = await checkSvg(path.join(repo, 'player.svg'));
    expect(svg).toContain('[canRetry] / log');
    expect(svg).toContain('entry / showSpinner');
    expect(svg).not.toMatch(/class=/);
    const named = await cli('render', 'player.ts', '--svg', '--out', 'docs-player.svg');
    expect(named).toMatchObject({ code: 0, out: 'docs-player.svg' });
    expect(await fs.readFile(path.join(repo, 'docs-player.svg'), 'utf8')).toBe(svg);
  });

  it('draws a PNG from the same picture, at twice its size', async () => {
    const r = await cli('render', 'player.ts', '--png');
    expect(r).toMatchObject({ code: 0, out: 'player.png' });
    const png = await sharp(path.join(repo, 'player.png')).metadata();
    const svg = await sharp(Buffer.from(await fs.readFile(path.join(repo, 'player.svg'), 'utf8'))).metadata();
    expect(png.format).toBe('png');
    expect(png.width).toBe(svg.width * 2);
    expect(png.height).toBe(svg.height * 2);
  });

  it("draws a room machine's current version", async () => {
    expect((await cli('push', 'player.ts', '--project', projectId)).code).toBe(0);
    const link = JSON.parse(await fs.readFile(path.join(repo, 'chartroom.json'), 'utf8')) as {
      machines: { machineId: string }[];
    };
    const machineId = link.machines[0]!.machineId;
    const r = await cli('render', '--machine', machineId, '--out', 'room.svg');
    expect(r).toMatchObject({ code: 0, out: 'room.svg' });
    await checkSvg(path.join(repo, 'room.svg'));
  });

  it('says why a file cannot be drawn, and writes nothing', async () => {
    await fs.writeFile(
      path.join(repo, 'broken.ts'),
      'export const m = createMachine({ states: { a: { on: { GO: } } } });\n',
    );
    const r = await cli('render', 'broken.ts');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^chartroom render: broken\.ts:1:\d+: /);
    expect(r.err.split('\n')).toHaveLength(1);
    await expect(fs.access(path.join(repo, 'broken.svg'))).rejects.toThrow();
    expect((await cli('render')).code).toBe(2);
    expect((await cli('render', '--help')).out).toContain('--png');
    expect((await cli('render', 'player.ts', '--svg', '--png')).code).toBe(2);
  });
});
