import type { JsonObject } from '../model/types.ts';
import type { TestScript, TestStep } from './types.ts';

/**
 * A saved test's script as stored (jsonb written by any client), checked before anything
 * runs or draws it: a malformed one is named in words ("step 2 has no expected states")
 * and kept out of runs, coverage and exports, never thrown.
 */

export type ReadScript = { ok: true; script: TestScript } | { ok: false; message: string };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function readStep(v: unknown, n: number): TestStep | string {
  if (!isObject(v)) return `step ${n} is not an object`;
  if (v.kind !== 'event' && v.kind !== 'time') return `step ${n} is neither an event nor a time step`;
  if (v.kind === 'event' && (typeof v.type !== 'string' || v.type === '')) return `step ${n} names no event`;
  if (v.type !== null && v.type !== undefined && typeof v.type !== 'string')
    return `step ${n} has an event type that is not text`;
  if (!isNames(v.expect) || v.expect.length === 0) return `step ${n} has no expected states`;
  if (v.payload !== undefined && !isObject(v.payload)) return `step ${n} has a payload that is not an object`;
  if (v.guards !== undefined && (!isObject(v.guards) || !Object.values(v.guards).every((g) => typeof g === 'boolean')))
    return `step ${n} has guard outcomes that are not true or false`;
  if (v.expectContext !== undefined && !isObject(v.expectContext))
    return `step ${n} has an expected context that is not an object`;
  const step: TestStep = {
    kind: v.kind,
    type: typeof v.type === 'string' ? v.type : null,
    payload: isObject(v.payload) ? v.payload : {},
    guards: (isObject(v.guards) ? v.guards : {}) as TestStep['guards'],
    expect: v.expect,
  };
  if (isObject(v.expectContext)) step.expectContext = v.expectContext;
  return step;
}

export function readScript(value: unknown): ReadScript {
  if (!isObject(value)) return { ok: false, message: 'the test has no script' };
  if (!isNames(value.start) || value.start.length === 0) return { ok: false, message: 'the test has no start states' };
  if (!Array.isArray(value.steps)) return { ok: false, message: 'the test has no list of steps' };
  const steps: TestStep[] = [];
  for (const [i, raw] of value.steps.entries()) {
    const step = readStep(raw, i + 1);
    if (typeof step === 'string') return { ok: false, message: step };
    steps.push(step);
  }
  return { ok: true, script: { start: value.start, steps } };
}
