import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTypeScript } from '../../../src/lib/convert/ts-import.ts';
import type { ModuleResolver } from '../../../src/lib/convert/ts-imports.ts';
import { readModule } from '../../../src/cli/modules.ts';
import { exportXState } from '../../../src/lib/model/export.ts';

/**
 * The TypeScript importer follows what a machine file imports from another file when the
 * caller gives it a way to read that file (`resolveModule`): a helper whose result is a
 * state config, called or spread, and a constant. Without one, or for what it still cannot
 * read, the part is left out, counted and said why, where the machine file uses it.
 */

const SHARED = `export const UNEXPECTED = 'Something went wrong. Try again.';

/** A request state: run \`src\`, go to \`done\` with its output, or \`failed\`. */
export function request(src: string, done: string, failed = 'failed') {
  return {
    tags: ['busy'],
    invoke: {
      id: src,
      src,
      onDone: { target: done, actions: { type: 'keep', params: ({ event }) => event.output } },
      onError: { target: failed, actions: 'showUnexpected' },
    },
  };
}

export const notRead = (n: number) => { const twice = n * 2; return { after: { [twice]: 'x' } }; };
`;

const MACHINE = `import { setup } from 'xstate';
import { request, notRead, UNEXPECTED as FALLBACK } from './shared.ts';

export const machine = setup({}).createMachine({
  id: 'loader',
  initial: 'loading',
  context: { message: FALLBACK },
  states: {
    loading: { ...request('load', 'ready') },
    saving: request('save', 'ready', 'ready'),
    ready: { on: { SAVE: 'saving' } },
    failed: { meta: { why: FALLBACK } },
  },
});
`;

const files: Record<string, string> = { '/app/machines/shared.ts': SHARED };
const resolveModule: ModuleResolver = (specifier, fromPath) => {
  const file = path.posix.resolve(path.posix.dirname(fromPath), specifier);
  const text = files[file];
  return text === undefined ? null : { path: file, text };
};
const FILE = '/app/machines/loader.machine.ts';

describe('the TypeScript importer, across files', () => {
  it('reads a state config from a helper imported from another file, spread or called, and an imported constant', () => {
    const read = importTypeScript(MACHINE, { fileName: FILE, resolveModule });
    expect(read.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(read.leftOut).toBeUndefined();
    const config = exportXState(read.definition!) as {
      states: Record<string, { tags?: string[]; invoke?: unknown; meta?: unknown }>;
    };
    expect(config.states.loading?.tags).toEqual(['busy']);
    expect(config.states.loading?.invoke).toEqual({
      id: 'load',
      src: 'load',
      onDone: { target: 'ready', actions: { type: 'keep', params: { $expr: '({ event }) => event.output' } } },
      onError: { target: 'failed', actions: 'showUnexpected' },
    });
    expect(config.states.saving?.invoke).toMatchObject({ id: 'save', onError: { target: 'ready' } });
    expect(config.states.failed?.meta).toEqual({ why: 'Something went wrong. Try again.' });
  });

  it('without a way to read the other file, leaves those parts out and says where they come from', () => {
    const read = importTypeScript(MACHINE, { fileName: FILE });
    expect(read.leftOut?.reasons).toEqual(['1 state key come from "request", defined in another file (./shared.ts)']);
    const lines = MACHINE.split('\n');
    const at = (pattern: RegExp) =>
      read.issues.filter((i) => pattern.test(i.message)).map((i) => lines[i.at!.line - 1]?.trim());
    expect(at(/spread/)).toEqual(["loading: { ...request('load', 'ready') },"]);
    expect(at(/call to request/)).toEqual(["saving: request('save', 'ready', 'ready'),"]);
    expect(at(/FALLBACK/)).toEqual(['context: { message: FALLBACK },', 'failed: { meta: { why: FALLBACK } },']);
  });

  it('reports what the other file still cannot give where this file uses it', () => {
    const text = `import { createMachine } from 'xstate';
import { notRead, missing } from './shared.ts';
export const m = createMachine({
  initial: 'a',
  states: {
    a: { ...notRead(2) },
    b: { ...missing() },
  },
});
`;
    const read = importTypeScript(text, { fileName: FILE, resolveModule });
    expect(read.definition).not.toBeNull();
    // Neither helper returns one expression the importer can read: both left out, at their line here.
    const lines = text.split('\n');
    const spreads = read.issues.filter((i) => /spread/.test(i.message));
    expect(spreads.map((i) => lines[i.at!.line - 1]?.trim())).toEqual([
      'a: { ...notRead(2) },',
      'b: { ...missing() },',
    ]);
  });

  it('survives a module that imports itself back, one that does not parse, and one that is not there', () => {
    const cyclic: Record<string, string> = {
      '/m/a.ts': `import { b } from './b.ts'; export const a = () => ({ ...b() });`,
      '/m/b.ts': `import { a } from './a.ts'; export const b = () => ({ ...a() });`,
      '/m/bad.ts': `export const c = ( => {`,
    };
    const resolve: ModuleResolver = (specifier, fromPath) => {
      const file = path.posix.resolve(path.posix.dirname(fromPath), specifier);
      return cyclic[file] === undefined ? null : { path: file, text: cyclic[file] };
    };
    const text = `import { createMachine } from 'xstate';
import { a } from './a.ts';
import { c } from './bad.ts';
import { d } from './gone.ts';
export const m = createMachine({ initial: 'x', states: { x: { ...a() }, y: { ...c() }, z: { ...d() } } });
`;
    const read = importTypeScript(text, { fileName: '/m/machine.ts', resolveModule: resolve });
    expect(read.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(Object.keys((exportXState(read.definition!) as { states: object }).states)).toEqual(['x', 'y', 'z']);
    // Each is reported in the machine file: the cycle at the call that led into it, the others at their spread.
    const spreads = read.issues.filter((i) => /spread/.test(i.message));
    expect(spreads.map((i) => i.at?.line)).toEqual([5, 5, 5]);
    expect(spreads.map((i) => i.at?.column)).toEqual([
      text.split('\n')[4]!.indexOf('a()') + 1,
      text.split('\n')[4]!.indexOf('...c()') + 1,
      text.split('\n')[4]!.indexOf('...d()') + 1,
    ]);
  });

  it('reads a constant that holds a helper result, spread where it is used', () => {
    const text = `import { setup } from 'xstate';
import { request } from './shared.ts';
const SAVE = request('save', 'ready');
export const m = setup({}).createMachine({ initial: 'saving', states: { saving: { ...SAVE }, ready: {}, failed: {} } });
`;
    const read = importTypeScript(text, { fileName: FILE, resolveModule });
    expect(read.leftOut).toBeUndefined();
    const config = exportXState(read.definition!) as { states: { saving: { tags?: string[]; invoke?: unknown } } };
    expect(config.states.saving.tags).toEqual(['busy']);
    expect(config.states.saving.invoke).toMatchObject({ src: 'save', onDone: { target: 'ready' } });
  });

  it('reads from disk for the command line: relative files only, endings tried', () => {
    const from = path.resolve('machines/account/projects.machine.ts');
    expect(readModule('../shared.ts', from)?.path).toBe(path.resolve('machines/shared.ts'));
    expect(readModule('../shared', from)?.text).toContain('export const UNEXPECTED');
    expect(readModule('../shared.js', from)?.path).toBe(path.resolve('machines/shared.ts'));
    expect(readModule('xstate', from)).toBeNull();
    expect(readModule('./no-such-file.ts', from)).toBeNull();
  });
});
