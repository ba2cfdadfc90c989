/** Deep equality of JSON values, ignoring key order (jsonb does not keep it). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const bo = b as Record<string, unknown>;
  return ka.every(
    (k) => Object.prototype.hasOwnProperty.call(bo, k) && sameJson((a as Record<string, unknown>)[k], bo[k]),
  );
}

/** A payload typed by a person: a JSON object, or why not. */
export function parsePayload(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, message: 'The payload must be a JSON object, like {"amount": 3}.' };
    if ('type' in value) return { ok: false, message: 'The payload must not set "type": the button sets it.' };
    return { ok: true, value: value as Record<string, unknown> };
  } catch (error) {
    return { ok: false, message: `Not JSON: ${error instanceof Error ? error.message : 'cannot parse'}` };
  }
}
