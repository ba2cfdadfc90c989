import { validationFailed } from './errors.ts';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Reads GoTrue's `ban_duration`: a Go duration ("24h", "1h30m", "876000h") or "none" to
 * lift a ban. Returns the ISO time the ban ends, null to lift it, undefined when absent.
 */
export function parseBanDuration(value: string, nowMs: number): string | null | undefined {
  if (value === '') return undefined;
  if (value === 'none') return null;
  const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (const match of value.matchAll(pattern)) {
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    consumed += match[0].length;
  }
  // A ban beyond year 9999 cannot be stored; clamp-free refusal keeps the rule visible.
  if (consumed !== value.length || consumed === 0 || !Number.isFinite(total) || nowMs + total > 253_402_300_799_000) {
    throw validationFailed(
      `invalid format for ban duration: time: invalid duration ${JSON.stringify(value.slice(0, 40))}`,
    );
  }
  return new Date(nowMs + total).toISOString();
}
