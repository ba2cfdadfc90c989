import { RestError, schemaNotExposed } from '../errors.ts';

export interface Preferences {
  return: 'minimal' | 'headers-only' | 'representation' | null;
  count: 'exact' | 'planned' | 'estimated' | null;
  resolution: 'merge-duplicates' | 'ignore-duplicates' | null;
  missing: 'default' | 'null' | null;
  tx: 'commit' | 'rollback' | null;
  params: 'single-object' | null;
  handling: 'strict' | 'lenient' | null;
  /** `max-affected=N`: with handling=strict, more affected rows than N fail the request (PGRST124). */
  maxAffected: number | null;
  /** The preferences understood and honoured, echoed as Preference-Applied. */
  applied: string[];
}

const KNOWN: Record<string, readonly string[]> = {
  return: ['minimal', 'headers-only', 'representation'],
  count: ['exact', 'planned', 'estimated'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  missing: ['default', 'null'],
  tx: ['commit', 'rollback'],
  params: ['single-object'],
  handling: ['strict', 'lenient'],
};

/** Reads `Prefer`; unknown or malformed preferences are ignored, as PostgREST's lenient handling does. */
export function parsePrefer(header: string | undefined): Preferences {
  const prefs: Preferences = {
    return: null,
    count: null,
    resolution: null,
    missing: null,
    tx: null,
    params: null,
    handling: null,
    maxAffected: null,
    applied: [],
  };
  if (!header) return prefs;
  for (const part of header.split(/[,;]/)) {
    const [rawKey, rawValue] = part.split('=');
    const key = rawKey?.trim().toLowerCase() ?? '';
    const value = rawValue?.trim().toLowerCase() ?? '';
    if (key === 'max-affected' && /^\d{1,15}$/.test(value)) prefs.maxAffected = Number(value);
    if (!KNOWN[key]?.includes(value)) continue;
    (prefs as unknown as Record<string, string>)[key] = value;
  }
  return prefs;
}

export type ResponseFormat = 'json' | 'object' | 'csv';

/** `;nulls=stripped` on the array/object media types (postgrest-js `.stripNulls()`). */
export function wantsStrippedNulls(header: string | undefined): boolean {
  return !!header && /application\/vnd\.pgrst\.(array|object)\+json\s*;\s*nulls=stripped/i.test(header);
}

export interface PlanRequest {
  format: 'json' | 'text';
  /** EXPLAIN options: analyze, verbose, settings, buffers, wal. */
  options: string[];
  /** The media type the plan is for (`for="..."`). */
  forType: string;
}

const PLAN_OPTIONS = new Set(['analyze', 'verbose', 'settings', 'buffers', 'wal']);

/** `application/vnd.pgrst.plan+json; for="application/json"; options=analyze|verbose`: postgrest-js `.explain()`. */
export function parsePlan(header: string | undefined): PlanRequest | null {
  const m = header ? /application\/vnd\.pgrst\.plan(\+json|\+text)?([^,]*)/i.exec(header) : null;
  if (!m) return null;
  const params = m[2] ?? '';
  const forType = /for="?([^";]+)"?/i.exec(params)?.[1] ?? 'application/json';
  const options = (/options=([a-z|]+)/i.exec(params)?.[1] ?? '')
    .toLowerCase()
    .split('|')
    .filter((o) => PLAN_OPTIONS.has(o));
  return { format: m[1]?.toLowerCase() === '+json' ? 'json' : 'text', options, forType };
}

/** Chooses the response media type from `Accept`; 406 PGRST107 when nothing fits. */
export function parseAccept(header: string | undefined): ResponseFormat {
  if (!header) return 'json';
  const types = header.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  for (const type of types) {
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === '') return 'json';
    if (type === 'application/vnd.pgrst.array+json' || type === 'application/vnd.pgrst.array') return 'json';
    if (type === 'application/vnd.pgrst.object+json' || type === 'application/vnd.pgrst.object') return 'object';
    if (type === 'text/csv' || type === 'text/*') return 'csv';
  }
  throw new RestError(406, 'PGRST107', `None of these media types are available: ${types.join(', ')}`);
}

/** `Range: 0-9` (with Range-Unit: items) as limit/offset, when present and well formed. */
export function parseRange(header: string | undefined): { offset: number; limit: number | null } | null {
  if (!header) return null;
  const m = /^\s*(?:items=)?(\d+)-(\d*)\s*$/.exec(header);
  if (!m) return null;
  const from = Number(m[1]);
  if (m[2] === '') return { offset: from, limit: null };
  const to = Number(m[2]);
  if (to < from) {
    throw new RestError(
      416,
      'PGRST103',
      'Requested range not satisfiable',
      'The lower boundary must be lower than or equal to the upper boundary in the Range header.',
    );
  }
  return { offset: from, limit: to - from + 1 };
}

/** Accept-Profile (reads) / Content-Profile (writes) choose one of the exposed schemas. */
export function chooseSchema(method: string, headers: Record<string, string>, exposed: readonly string[]): string {
  const reading = method === 'GET' || method === 'HEAD';
  const asked = reading ? headers['accept-profile'] : headers['content-profile'];
  if (asked === undefined || asked === '') return exposed[0] ?? 'public';
  if (!exposed.includes(asked)) throw schemaNotExposed(exposed);
  return asked;
}
