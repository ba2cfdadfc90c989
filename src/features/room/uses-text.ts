/** "used once", "used 3 times", "used 1 of 5 times", "not used yet": never "used 1 times". */
export function usesText(uses: number, maxUses: number | null): string {
  if (maxUses) return `used ${uses} of ${maxUses} times`;
  if (uses === 0) return 'not used yet';
  return uses === 1 ? 'used once' : `used ${uses} times`;
}
