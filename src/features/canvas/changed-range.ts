/**
 * The one range that turns `before` into `after` (their common start and end kept), or null
 * when they are equal. Replacing only that range lets CodeMirror re-parse and re-draw around
 * it, and keeps the reader's place, where replacing the whole text re-parsed all of it.
 */
export function changedRange(before: string, after: string): { from: number; to: number; insert: string } | null {
  if (before === after) return null;
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < shorter - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  )
    end++;
  return { from: start, to: before.length - end, insert: after.slice(start, after.length - end) };
}
