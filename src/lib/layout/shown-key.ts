/**
 * A definition's text with every object's keys in sorted order: two definitions that show
 * the same picture get the same key whatever order their keys came in. A definition read
 * back from the server has its keys in jsonb's order (shorter first), not the order this
 * tab wrote them, so a plain `JSON.stringify` would call an echoed edit new and lay it out
 * again.
 */
export function shownKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
