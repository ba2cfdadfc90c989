import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyOp,
  applyOps,
  applyWithInverse,
  canApply,
  counterIds,
  exportXState,
  importXState,
  integrityProblems,
  invert,
  OpError,
  validateDefinition,
  type MachineDefinition,
  type Op,
} from '../../../src/lib/model/index.ts';
import { definition, intent, toOp } from './arbitraries.ts';
import { machineFrom, semantics } from './helpers.ts';

// Enough runs to find shape bugs; kept modest because the suite shares two cores with the backend tests.
const RUNS = 150;
const SLOW = 120_000;

/** A deep copy to compare against later: proves ops never mutate their input. */
const snapshot = (def: MachineDefinition): MachineDefinition => structuredClone(def);

describe('ops: properties over random definitions and op sequences', () => {
  it(
    'every op followed by its inverse restores the definition exactly',
    () => {
      fc.assert(
        fc.property(definition, intent, (def, i) => {
          const op = toOp(def, i, counterIds('op'));
          fc.pre(op !== null);
          const before = snapshot(def);
          if (!canApply(def, op)) {
            expect(() => applyOp(def, op)).toThrow(OpError);
            expect(def).toStrictEqual(before);
            return;
          }
          const after = applyOp(def, op);
          expect(integrityProblems(after)).toEqual([]);
          const restored = applyOps(after, invert(def, op));
          expect(restored).toStrictEqual(before);
          expect(def).toStrictEqual(before);
          expect(JSON.parse(JSON.stringify(after))).toStrictEqual(after); // jsonb-safe: no undefined, no functions
        }),
        { numRuns: RUNS * 2 },
      );
    },
    SLOW,
  );

  it(
    'a whole sequence undone in reverse order restores the start, and redo replays it',
    () => {
      fc.assert(
        fc.property(definition, fc.array(intent, { maxLength: 25 }), (start, intents) => {
          const fresh = counterIds('seq');
          let def = start;
          const undo: Op[][] = [];
          const redo: Op[] = [];
          for (const i of intents) {
            const op = toOp(def, i, fresh);
            if (op === null || !canApply(def, op)) continue;
            const step = applyWithInverse(def, op);
            def = step.definition;
            undo.push(step.inverse);
            redo.push(op);
            expect(integrityProblems(def)).toEqual([]);
          }
          const end = def;
          for (const inverse of undo.reverse()) def = applyOps(def, inverse);
          expect(def).toStrictEqual(start);
          expect(applyOps(start, redo)).toStrictEqual(end);
        }),
        { numRuns: RUNS },
      );
    },
    SLOW,
  );

  it(
    'random definitions stay structurally sound',
    () => {
      fc.assert(
        fc.property(definition, (def) => {
          expect(integrityProblems(def)).toEqual([]);
        }),
        { numRuns: RUNS },
      );
    },
    SLOW,
  );

  it(
    'garbage ops are refused with OpError, never another error, never a change',
    () => {
      const garbage = fc.record(
        {
          type: fc.constantFrom(
            'state.add',
            'state.insert',
            'state.delete',
            'state.rename',
            'state.move',
            'state.setType',
            'state.setInitial',
            'state.update',
            'transition.add',
            'transition.update',
            'transition.retarget',
            'transition.delete',
            'machine.update',
            'nope',
          ),
          id: fc.oneof(fc.string(), fc.constant('s_base_1'), fc.constant('t_base_4'), fc.integer(), fc.constant(null)),
          parent: fc.oneof(fc.constant('s_base_1'), fc.anything()),
          key: fc.anything(),
          index: fc.anything(),
          stateType: fc.anything(),
          initial: fc.anything(),
          changes: fc.oneof(
            fc.anything(),
            fc.dictionary(fc.constantFrom('entry', 'event', 'tags', 'order', 'meta', 'name', 'bogus'), fc.anything()),
          ),
          transition: fc.anything(),
          targets: fc.anything(),
          states: fc.anything(),
          transitions: fc.anything(),
        },
        { requiredKeys: ['type'] },
      );
      fc.assert(
        fc.property(definition, garbage, (def, op) => {
          const before = snapshot(def);
          try {
            const after = applyOp(def, op as unknown as Op);
            expect(integrityProblems(after)).toEqual([]);
          } catch (err) {
            expect(err).toBeInstanceOf(OpError);
          }
          expect(def).toStrictEqual(before);
        }),
        { numRuns: RUNS * 2 },
      );
    },
    SLOW,
  );
});

describe('import/export: properties over generated configs', () => {
  it(
    'export(import(cfg)) deep-equals cfg for every normalised config (cfg = export of a random definition)',
    () => {
      fc.assert(
        fc.property(definition, (def) => {
          const cfg = exportXState(def);
          expect(exportXState(importXState(cfg, { ids: counterIds('rt') }))).toStrictEqual(cfg);
        }),
        { numRuns: RUNS },
      );
    },
    SLOW,
  );

  it(
    'import(export(def)) is the same chart: same shape, validation and XState meaning',
    () => {
      fc.assert(
        fc.property(definition, (def) => {
          const cfg = exportXState(def);
          const again = importXState(cfg, { ids: counterIds('rt') });
          expect(Object.keys(again.states).length).toBe(Object.keys(def.states).length);
          expect(Object.keys(again.transitions).length).toBe(Object.keys(def.transitions).length);
          // Same findings; their order may differ (export groups `on` before `always`, ...).
          const findings = (d: MachineDefinition): string[] =>
            validateDefinition(d)
              .map((x) => `${x.path} ${x.message}`)
              .sort();
          expect(findings(again)).toEqual(findings(def));
          // Only well-formed charts can be built by XState; compare what it reads from both.
          fc.pre(validateDefinition(def).every((issue) => issue.severity === 'warning'));
          expect(semantics(machineFrom(exportXState(again)))).toEqual(semantics(machineFrom(cfg)));
        }),
        { numRuns: RUNS },
      );
    },
    SLOW,
  );
});
