/** Helpers for `npm run bench`: figures, never pass/fail. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean,
  };
}

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

/** Milliseconds since an hrtime mark. */
export function since(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export interface BenchContext {
  /** Prints one figure: a label, a value and, when given, the aim it is read against. */
  report(label: string, value: string, aim?: string): void;
  /** A heading for a group of figures. */
  section(title: string): void;
}

/** One area's benchmark; sections live in bench/sections/<area>.ts and export `run`. */
export type BenchSection = (ctx: BenchContext) => Promise<void>;
