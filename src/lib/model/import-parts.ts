import { indexPath, keyPath } from './paths.ts';
import type { ActionRef, Delay, GuardRef, Issue, Json, JsonObject } from './types.ts';

/** Readers for the small pieces of an XState config, collecting issues instead of throwing. */

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class IssueSink {
  readonly issues: Issue[] = [];
  error(path: string, message: string): void {
    this.issues.push({ severity: 'error', path, message });
  }
  warning(path: string, message: string): void {
    this.issues.push({ severity: 'warning', path, message });
  }
  get failed(): boolean {
    return this.issues.some((i) => i.severity === 'error');
  }
}

/** Keys a config object may have; anything else is reported and dropped. */
export function checkKeys(
  sink: IssueSink,
  obj: JsonObject,
  path: string,
  allowed: readonly string[],
  v4: Record<string, string> = {},
): void {
  for (const key of Object.keys(obj)) {
    if (allowed.includes(key)) continue;
    const hint = Object.hasOwn(v4, key) ? v4[key] : undefined;
    if (hint !== undefined) sink.error(keyPath(path, key), hint);
    else sink.warning(keyPath(path, key), `unsupported property "${key}" is ignored`);
  }
}

function readRef(sink: IssueSink, value: Json, path: string, what: string): ActionRef | null {
  if (typeof value === 'string') {
    if (value === '') {
      sink.error(path, `${what} name must not be empty`);
      return null;
    }
    return { type: value };
  }
  if (isObject(value)) {
    checkKeys(sink, value, path, ['type', 'params']);
    const type = value.type;
    if (typeof type !== 'string' || type === '') {
      sink.error(keyPath(path, 'type'), `${what} needs a "type" naming its implementation`);
      return null;
    }
    return value.params === undefined ? { type } : { type, params: value.params };
  }
  sink.error(path, `${what} must be a name or { "type": ..., "params": ... }`);
  return null;
}

/** `'name'`, `{ type, params }` or an array of those. */
export function readActions(sink: IssueSink, value: Json | undefined, path: string): ActionRef[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const out: ActionRef[] = [];
  list.forEach((item, i) => {
    const ref = readRef(sink, item, Array.isArray(value) ? indexPath(path, i) : path, 'an action');
    if (ref) out.push(ref);
  });
  return out;
}

export function readGuard(sink: IssueSink, value: Json | undefined, path: string): GuardRef | null {
  if (value === undefined) return null;
  return readRef(sink, value, path, 'a guard');
}

export function readString(sink: IssueSink, value: Json | undefined, path: string): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  sink.error(path, 'must be a string');
  return null;
}

export function readMeta(sink: IssueSink, value: Json | undefined, path: string): JsonObject | null {
  if (value === undefined) return null;
  if (isObject(value)) return value;
  sink.error(path, 'must be an object');
  return null;
}

export function readTags(sink: IssueSink, value: Json | undefined, path: string): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  list.forEach((tag, i) => {
    if (typeof tag === 'string') out.push(tag);
    else sink.error(Array.isArray(value) ? indexPath(path, i) : path, 'a tag must be a string');
  });
  return out;
}

/** `after` keys: canonical non-negative numbers are milliseconds, anything else a named delay. */
export function delayOf(key: string): Delay {
  const n = Number(key);
  return key !== '' && Number.isFinite(n) && n >= 0 && String(n) === key ? n : key;
}
