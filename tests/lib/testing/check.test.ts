import { describe, expect, it } from 'vitest';
import { toSavedTest } from '../../../src/adapters/supabase/machine-tests.ts';
import type { Json, Tables } from '../../../src/adapters/supabase/database.types.ts';
import { readScript } from '../../../src/lib/testing/check.ts';

/** Saved tests as stored rows: a well-formed script reads back as is; a malformed one is named in words. */

const step = { kind: 'event', type: 'TOGGLE', payload: {}, guards: { hasCard: true }, expect: ['on'] };
const good = { start: ['off'], steps: [step, { kind: 'time', type: null, payload: {}, guards: {}, expect: ['off'] }] };

const row = (script: unknown): Tables<'machine_tests'> => ({
  id: 't1',
  project_id: 'p1',
  machine_id: 'm1',
  name: 'a test',
  script: script as Json,
  initial_context: null,
  machine_version: 3,
  source: 'path',
  simulation_id: null,
  created_by: null,
  created_at: '2026-11-24T20:00:00Z',
});

describe('reading a stored test script', () => {
  it('reads a well-formed script, steps and all', () => {
    expect(readScript(good)).toEqual({ ok: true, script: good });
    const withContext = { start: ['off'], steps: [{ ...step, expectContext: { n: 1 } }] };
    expect(readScript(withContext)).toEqual({ ok: true, script: withContext });
  });

  it.each([
    [null, 'the test has no script'],
    [[], 'the test has no script'],
    [{ steps: [] }, 'the test has no start states'],
    [{ start: [], steps: [] }, 'the test has no start states'],
    [{ start: ['off'] }, 'the test has no list of steps'],
    [{ start: ['off'], steps: [step, 7] }, 'step 2 is not an object'],
    [{ start: ['off'], steps: [{ ...step, kind: 'jump' }] }, 'step 1 is neither an event nor a time step'],
    [{ start: ['off'], steps: [{ ...step, type: null }] }, 'step 1 names no event'],
    [{ start: ['off'], steps: [{ ...step, kind: 'time', type: 5 }] }, 'step 1 has an event type that is not text'],
    [{ start: ['off'], steps: [step, { ...step, expect: [] }] }, 'step 2 has no expected states'],
    [{ start: ['off'], steps: [{ ...step, payload: 'x' }] }, 'step 1 has a payload that is not an object'],
    [
      { start: ['off'], steps: [{ ...step, guards: { a: 'yes' } }] },
      'step 1 has guard outcomes that are not true or false',
    ],
    [
      { start: ['off'], steps: [{ ...step, expectContext: [1] }] },
      'step 1 has an expected context that is not an object',
    ],
  ])('names what is wrong with %j', (script, message) => {
    expect(readScript(script)).toEqual({ ok: false, message });
  });

  it('turns a malformed row into a test with a problem and an empty script, and a sound one into a plain test', () => {
    const bad = toSavedTest(row({ start: ['off'], steps: [{ kind: 'event', type: 'GO' }] }));
    expect(bad.problem).toBe('This test is malformed: step 1 has no expected states.');
    expect(bad.script).toEqual({ start: [], steps: [] });
    expect(bad.name).toBe('a test');
    const sound = toSavedTest(row(good));
    expect(sound.problem).toBeUndefined();
    expect(sound.script).toEqual(good);
    expect(sound.machineVersion).toBe(3);
  });
});
