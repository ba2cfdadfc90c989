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

/** An event loop's delay (perf_hooks histogram, in ns) as ms percentiles. */
export interface LoopLag {
  p50: number;
  p99: number;
  max: number;
}

export function loopLag(h: { percentile(p: number): number; max: number }): LoopLag {
  return { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
}

/**
 * Times the backend's answers to one path, from the gateway's request log (a backend
 * started with logRequests and this `log`): the server's share of a request's time.
 */
export function requestTimer(pathname: string) {
  const samples: number[] = [];
  let on = false;
  const pattern = new RegExp(`^POST ${pathname.replace(/[/.]/g, '\\$&')} \\d+ ([\\d.]+)ms$`);
  return {
    log: (line: string): void => {
      if (!on) return;
      const m = pattern.exec(line);
      if (m) samples.push(Number(m[1]));
    },
    start(): void {
      samples.length = 0;
      on = true;
    },
    stop(): number[] {
      on = false;
      return [...samples];
    },
  };
}

export interface BenchContext {
  /** Prints one figure: a label, a value and, when given, the aim it is read against. */
  report(label: string, value: string, aim?: string): void;
  /** A heading for a group of figures. */
  section(title: string): void;
}

/** One area's benchmark; sections live in bench/sections/<area>.ts and export `run`. */
export type BenchSection = (ctx: BenchContext) => Promise<void>;

/**
 * Waits for `work`, or throws after `ms` naming what did not finish: a step that never
 * settles (a lost answer, a stuck worker) stops the bench with a message instead of a hang.
 * It never changes a figure: the timer only decides when to give up.
 */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bench: ${what} did not finish within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
