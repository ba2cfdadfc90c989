import type { SignInLimit } from './options.ts';

/** Keys are bounded so a flood of distinct emails cannot grow memory without end. */
const MAX_KEYS = 50_000;

/**
 * Counts failed sign-ins per key (an email or an IP address) in a sliding window, in
 * memory. A key with `max` failures inside the window is blocked until the oldest of them
 * leaves it; a successful sign-in clears the key. Time comes from the injected clock.
 */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  private recent(key: string): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const cutoff = this.now() - this.windowMs;
    const kept = times.filter((t) => t > cutoff);
    if (kept.length === 0) this.failures.delete(key);
    else if (kept.length !== times.length) this.failures.set(key, kept);
    return kept;
  }

  blocked(key: string): boolean {
    return this.recent(key).length >= this.max;
  }

  fail(key: string): void {
    const times = this.recent(key);
    times.push(this.now());
    // Only the newest `max` matter for the decision.
    this.failures.set(key, times.slice(-this.max));
    if (this.failures.size > MAX_KEYS) this.sweep();
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  private sweep(): void {
    for (const key of [...this.failures.keys()]) this.recent(key);
    // Still too many: forget the oldest-inserted keys (Map keeps insertion order).
    for (const key of this.failures.keys()) {
      if (this.failures.size <= MAX_KEYS) break;
      this.failures.delete(key);
    }
  }
}

/** The sign-in limiter: one window per email address and one per client IP. */
export class SignInLimiter {
  private readonly byEmail: FailureWindow;
  private readonly byIp: FailureWindow;

  constructor(limit: SignInLimit, now: () => number) {
    this.byEmail = new FailureWindow(limit.maxFailuresPerEmail, limit.windowSeconds * 1000, now);
    this.byIp = new FailureWindow(limit.maxFailuresPerIp, limit.windowSeconds * 1000, now);
  }

  blocked(email: string, ip: string): boolean {
    return this.byEmail.blocked(email.toLowerCase()) || this.byIp.blocked(ip);
  }

  failed(email: string, ip: string): void {
    this.byEmail.fail(email.toLowerCase());
    this.byIp.fail(ip);
  }

  succeeded(email: string, ip: string): void {
    this.byEmail.reset(email.toLowerCase());
    this.byIp.reset(ip);
  }
}
