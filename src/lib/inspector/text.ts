import type { ActionRef, GuardRef, Json, JsonObject } from '../model/types.ts';

/**
 * The small text forms the Inspector's fields use, so no one writes JSON for a name:
 * - an action list: one per line, `name` or `name {"json": "params"}`;
 * - a guard: `name`, `name {params}`, `and(a, b)`, `or(a, not(b))`, `not(a)`;
 * - tags: comma-separated.
 * Each reader answers a value or an error in words; each writer is its inverse.
 */

export type Read<T> = { ok: true; value: T } | { ok: false; error: string };

const NAME = /^[^\s(){},]+/;

/** The end of the JSON object starting at `text[start]` (`{`), strings respected; -1 when unbalanced. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

function readParams(text: string, at: number): Read<{ params: JsonObject | undefined; next: number }> {
  if (text[at] !== '{') return { ok: true, value: { params: undefined, next: at } };
  const end = objectEnd(text, at);
  if (end < 0) return { ok: false, error: 'params: an unclosed {' };
  try {
    const params = JSON.parse(text.slice(at, end)) as Json;
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      return { ok: false, error: 'params must be a JSON object' };
    return { ok: true, value: { params, next: end } };
  } catch (err) {
    return { ok: false, error: `params are not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function readRef(line: string, what: string): Read<ActionRef> {
  const m = NAME.exec(line);
  if (!m) return { ok: false, error: `${what}: expected a name in "${line}"` };
  const rest = line.slice(m[0].length).trimStart();
  if (rest === '') return { ok: true, value: { type: m[0] } };
  const p = readParams(rest, 0);
  if (!p.ok) return { ok: false, error: `${what} ${m[0]}: ${p.error}` };
  if (rest.slice(p.value.next).trim() !== '')
    return { ok: false, error: `${what} ${m[0]}: unexpected text after params` };
  return { ok: true, value: p.value.params === undefined ? { type: m[0] } : { type: m[0], params: p.value.params } };
}

export function readActions(text: string): Read<ActionRef[]> {
  const out: ActionRef[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const r = readRef(line, 'action');
    if (!r.ok) return r;
    out.push(r.value);
  }
  return { ok: true, value: out };
}

export function writeActions(list: ActionRef[]): string {
  return list.map((a) => (a.params === undefined ? a.type : `${a.type} ${JSON.stringify(a.params)}`)).join('\n');
}

export function readTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ];
}

const MAX_GUARD_DEPTH = 50;

/** `''` is no guard (null). */
export function readGuard(text: string): Read<GuardRef | null> {
  const src = text.trim();
  if (src === '') return { ok: true, value: null };
  let i = 0;
  const space = (): void => {
    while (i < src.length && /\s/.test(src[i] as string)) i++;
  };
  const guard = (depth: number): Read<GuardRef> => {
    if (depth > MAX_GUARD_DEPTH) return { ok: false, error: 'guard is nested too deeply' };
    space();
    const m = NAME.exec(src.slice(i));
    if (!m) return { ok: false, error: `guard: expected a name at column ${i + 1}` };
    const name = m[0];
    i += name.length;
    space();
    if ((name === 'and' || name === 'or' || name === 'not') && src[i] === '(') {
      i++;
      const list: GuardRef[] = [];
      for (;;) {
        const g = guard(depth + 1);
        if (!g.ok) return g;
        list.push(g.value);
        space();
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === ')') {
          i++;
          break;
        }
        return { ok: false, error: `guard: expected "," or ")" at column ${i + 1}` };
      }
      if (name === 'not' && list.length !== 1) return { ok: false, error: 'not(...) takes one guard' };
      return { ok: true, value: { type: name, params: { guards: list.map(guardJson) } } };
    }
    const p = readParams(src, i);
    if (!p.ok) return { ok: false, error: `guard ${name}: ${p.error}` };
    i = p.value.next;
    return { ok: true, value: p.value.params === undefined ? { type: name } : { type: name, params: p.value.params } };
  };
  const g = guard(0);
  if (!g.ok) return g;
  space();
  if (i < src.length) return { ok: false, error: `guard: unexpected text at column ${i + 1}` };
  return g;
}

function guardJson(g: GuardRef): Json {
  return g.params === undefined ? g.type : { type: g.type, params: g.params };
}

export function writeGuard(g: GuardRef | null): string {
  if (g === null) return '';
  const params = g.params;
  if (
    (g.type === 'and' || g.type === 'or' || g.type === 'not') &&
    typeof params === 'object' &&
    params !== null &&
    !Array.isArray(params) &&
    Array.isArray(params.guards)
  ) {
    const parts = params.guards.map((x) =>
      writeGuard(typeof x === 'string' ? { type: x } : (x as unknown as GuardRef)),
    );
    return `${g.type}(${parts.join(', ')})`;
  }
  return params === undefined ? g.type : `${g.type} ${JSON.stringify(params)}`;
}

/** A JSON object or empty (null); arrays and scalars are refused. */
export function readJsonObject(text: string, what: string): Read<JsonObject | null> {
  if (text.trim() === '') return { ok: true, value: null };
  try {
    const v = JSON.parse(text) as Json;
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      return { ok: false, error: `${what} must be a JSON object` };
    return { ok: true, value: v };
  } catch (err) {
    return { ok: false, error: `${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}
