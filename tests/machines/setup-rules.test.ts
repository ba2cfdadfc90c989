import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor, toPromise, type AnyActorLogic, type AnyStateMachine } from 'xstate';

/**
 * The rules every machine under machines/ keeps (machines/CONTEXT.md, "Writing a machine:
 * one way"), read from the files themselves so a new machine is held to them at once:
 * - every placeholder actor a setup declares (one the composition root provides) fails
 *   loudly, naming its machine and actor, when nobody provided it; none stays silent or
 *   answers a dummy;
 * - placeholders are written with `requestNotProvided`, `streamNotProvided` or
 *   `callbackNotProvided` from shared.ts, never the long way;
 * - every setup declares the tags its chart uses in `types: { tags }`;
 * - the chart names its actions and guards: no `assign(...)`, `sendTo(...)` or other
 *   action built inside it, and no arrow guard.
 */

const ROOT = 'machines';

function machineFiles(): string[] {
  const files: string[] = [];
  for (const folder of fs.readdirSync(ROOT, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const file of fs.readdirSync(path.join(ROOT, folder.name))) {
      if (file.endsWith('.ts')) files.push(path.join(ROOT, folder.name, file));
    }
  }
  return files.sort();
}

const FILES = machineFiles();
const SETUPS = FILES.filter((f) => fs.readFileSync(f, 'utf8').includes('setup({'));

const isMachine = (value: unknown): value is AnyStateMachine =>
  typeof value === 'object' && value !== null && 'config' in value && 'implementations' in value;

/** Every machine the files export, by the name it is exported as. */
async function exportedMachines(): Promise<Map<string, AnyStateMachine>> {
  const machines = new Map<string, AnyStateMachine>();
  for (const file of FILES) {
    const module = (await import(path.resolve(file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (isMachine(value)) machines.set(`${file}: ${name}`, value);
    }
  }
  return machines;
}

/**
 * How an actor nobody provided ends when started: the error it fails with, or what it did
 * instead once everything it had started has run (a rejection or a throw is settled by then).
 */
async function failureOf(logic: AnyActorLogic): Promise<string> {
  const actor = createActor(logic, { input: undefined });
  const ended = toPromise(actor).then(
    () => 'it finished without failing',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  actor.start();
  const outcome = await Promise.race([ended, new Promise<string>((done) => setImmediate(() => done('')))]);
  actor.stop();
  return outcome === '' ? 'it kept running without failing' : outcome;
}

/** The text of a file's chart: from its first `createMachine(` or `createStateConfig(` on. */
function chartOf(text: string): string {
  const starts = [text.indexOf('.createMachine('), text.indexOf('.createStateConfig(')].filter((i) => i >= 0);
  return starts.length === 0 ? '' : text.slice(Math.min(...starts));
}

describe('machines: the rules they keep', () => {
  it('finds the machines it holds to the rules', async () => {
    const machines = await exportedMachines();
    expect(SETUPS.length).toBeGreaterThanOrEqual(25);
    expect(machines.size).toBeGreaterThanOrEqual(25);
  });

  it('every placeholder actor fails loudly, naming its machine and actor, when not provided', async () => {
    const silent: string[] = [];
    let placeholders = 0;
    for (const [where, machine] of await exportedMachines()) {
      const actors = (machine.implementations.actors ?? {}) as Record<string, AnyActorLogic>;
      for (const [name, logic] of Object.entries(actors)) {
        if (isMachine(logic)) continue; // a child machine, not a placeholder
        placeholders += 1;
        const failure = await failureOf(logic);
        if (!failure.includes(`"${name}" actor must be provided`)) silent.push(`${where} ${name}: ${failure}`);
      }
    }
    expect(placeholders).toBeGreaterThanOrEqual(60);
    expect(silent).toEqual([]);
  });

  it('writes every placeholder with the shared helpers, never the long way', () => {
    const long = FILES.filter((f) => f !== 'machines/shared.ts').flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /\b(fromPromise|fromEventObservable|fromObservable|fromCallback)\b|\bEMPTY\b|\bNEVER\b/.test(line)
            ? [`${file}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(long).toEqual([]);
  });

  it('every setup declares its tags in types', () => {
    const untyped = SETUPS.filter(
      (file) => !/types:\s*\{[^]*?\btags:\s*\{\}\s*as\s/.test(fs.readFileSync(file, 'utf8')),
    );
    expect(untyped).toEqual([]);
  });

  it('no chart builds an action or guard inline', () => {
    const inline = FILES.flatMap((file) =>
      chartOf(fs.readFileSync(file, 'utf8'))
        .split('\n')
        .flatMap((line) =>
          /\b(assign|sendTo|sendParent|raise|emit|enqueueActions|log|cancel|spawnChild|stopChild)\(|guard:\s*\(/.test(
            line,
          )
            ? [`${file}: ${line.trim()}`]
            : [],
        ),
    );
    expect(inline).toEqual([]);
  });
});
