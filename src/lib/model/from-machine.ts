import { exportXState } from './export.ts';
import { counterIds } from './ids.ts';
import { importXState } from './import.ts';
import { keyPath, indexPath } from './paths.ts';
import type { Issue, Json, JsonObject } from './types.ts';

/**
 * XState v5 machine objects (`createMachine(...)`, e.g. the app's own machines/) as JSON
 * configs, so they can be imported as examples. A machine config may hold functions
 * (dynamic `params`, `input`, `context`, inline actions); JSON cannot, so each becomes
 * `{ "$expr": "<its source>" }`, which the model keeps as data: the code view shows it,
 * an export carries it, and nothing runs it. Inline actions and guards become named refs
 * (`{ type, params: { $expr } }`) and are reported as warnings.
 */

export interface MachineLike {
  config: unknown;
}

/** Keys whose function values are data (expressions), not named implementations. */
const EXPRESSION_KEYS = new Set(['params', 'input', 'context', 'output']);
/** Keys that only matter to TypeScript or the runtime, never to the chart. */
const DROPPED_ROOT_KEYS = new Set(['types', 'schemas']);

export function machineConfigJson(machine: MachineLike): { config: JsonObject; issues: Issue[] } {
  const issues: Issue[] = [];
  const expr = (fn: (...args: never[]) => unknown): JsonObject => ({ $expr: String(fn) });
  const walk = (value: unknown, path: string, key: string, depth: number): Json | undefined => {
    if (depth > 100) throw new Error(`${path}: config is nested too deeply (a cycle?)`);
    if (value === undefined) return undefined;
    if (typeof value === 'function') {
      const fn = value as ((...args: never[]) => unknown) & { type?: unknown; guards?: unknown };
      if (EXPRESSION_KEYS.has(key)) return expr(fn);
      const type = typeof fn.type === 'string' ? fn.type : fn.name !== '' ? fn.name : 'inline';
      // and()/or()/not() carry their operands; keep those (names) rather than the wrapper's source.
      if (Array.isArray(fn.guards)) {
        issues.push({
          severity: 'warning',
          path,
          message: `higher-order guard kept as { type: "${type}", params: { guards } }`,
        });
        return {
          type,
          params: {
            guards: fn.guards.map(
              (g, i) => walk(g, indexPath(keyPath(keyPath(path, 'params'), 'guards'), i), 'guard', depth + 1) ?? null,
            ),
          },
        };
      }
      issues.push({
        severity: 'warning',
        path,
        message: `inline implementation kept as "${type}" with its source as params; name it in setup() instead`,
      });
      return { type, params: expr(fn) };
    }
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
    if (Array.isArray(value)) {
      return value.map((v, i) => walk(v, indexPath(path, i), key, depth + 1) ?? null);
    }
    if (typeof value === 'object') {
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value)) {
        if (depth === 0 && DROPPED_ROOT_KEYS.has(k)) continue;
        const j = walk(v, keyPath(path, k), k, depth + 1);
        if (j !== undefined)
          Object.defineProperty(out, k, { value: j, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    issues.push({ severity: 'warning', path, message: `a ${typeof value} cannot be expressed in JSON; dropped` });
    return undefined;
  };
  const config = walk(machine.config, '', '', 0);
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new Error('machine.config is not an object');
  return { config, issues };
}

/** A machine object's config as normalised JSON (`exportXState(importXState(config))`). */
export function fromMachine(machine: MachineLike): JsonObject {
  return exportXState(importXState(machineConfigJson(machine).config, { ids: counterIds('m') }));
}
