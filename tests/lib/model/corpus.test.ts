import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkXStateText,
  counterIds,
  exportXState,
  fromMachine,
  importXState,
  machineConfigJson,
  validateDefinition,
  type MachineLike,
} from '../../../src/lib/model/index.ts';
import type { AnyStateMachine } from 'xstate';
import { fixtures, machineFrom, semantics, stateKeyOrder, targetsBothWays } from './helpers.ts';

describe('round trip over the hand-written corpus (tests/fixtures/machines)', () => {
  const corpus = fixtures();

  it('has at least eight realistic configs', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(8);
  });

  for (const { name, text, config } of corpus) {
    describe(name, () => {
      it('exports exactly what it imported, states in the same order', () => {
        const def = importXState(config, { ids: counterIds() });
        const out = exportXState(def);
        expect(out).toStrictEqual(config);
        expect(stateKeyOrder(out)).toEqual(stateKeyOrder(config));
      });

      it('resolves every target to the state XState resolves it to', () => {
        const def = importXState(config, { ids: counterIds() });
        const { xstate, model } = targetsBothWays(config, def);
        expect(model).toEqual(xstate);
      });

      it('means the same to XState after the round trip', () => {
        const out = exportXState(importXState(config, { ids: counterIds() }));
        expect(semantics(machineFrom(out))).toEqual(semantics(machineFrom(config)));
      });

      it('has no validation errors (warnings only where intended)', () => {
        const result = checkXStateText(text);
        expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
        expect(result.definition).not.toBeNull();
      });
    });
  }

  it('warns about the one deliberately unreachable state', () => {
    const vending = corpus.find((c) => c.name === 'vending.json');
    expect(vending).toBeDefined();
    const issues = validateDefinition(importXState(vending?.config));
    expect(issues).toEqual([
      {
        severity: 'warning',
        path: 'states.maintenance',
        message: 'state "maintenance" is unreachable: no initial state or transition leads to it',
      },
    ]);
  });
});

describe("round trip over Chartroom's own machines (machines/**/*.machine.ts)", async () => {
  const dir = path.resolve('machines');
  const files = fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.machine.ts'))
    .sort();
  const machines: { file: string; name: string; machine: MachineLike }[] = [];
  for (const file of files) {
    const mod = (await import(path.join(dir, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === 'object' && value !== null && 'config' in value && 'root' in value) {
        machines.push({ file, name, machine: value });
      }
    }
  }

  it('finds at least the session machine', () => {
    expect(machines.map((m) => m.name)).toContain('sessionMachine');
  });

  for (const { file, name, machine } of machines) {
    describe(`${file}: ${name}`, () => {
      it('fromMachine gives a normalised config that round-trips exactly, states in order', () => {
        const normal = fromMachine(machine);
        const out = exportXState(importXState(normal, { ids: counterIds() }));
        expect(out).toStrictEqual(normal);
        expect(stateKeyOrder(out)).toEqual(stateKeyOrder(machineConfigJson(machine).config));
      });

      it('means what the machine means: XState reads the same chart from the exported config', () => {
        // Normalising may rewrite syntax ({ target: 'x' } -> 'x'), never meaning.
        expect(semantics(machineFrom(fromMachine(machine)))).toEqual(semantics(machine as AnyStateMachine));
      });

      it('has no validation errors and XState resolves the same targets', () => {
        const { config } = machineConfigJson(machine);
        const def = importXState(config, { ids: counterIds() });
        expect(validateDefinition(def).filter((i) => i.severity === 'error')).toEqual([]);
        const { xstate, model } = targetsBothWays(config, def);
        expect(model).toEqual(xstate);
      });
    });
  }
});
