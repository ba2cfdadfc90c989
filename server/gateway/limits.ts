/**
 * Per-caller limits at the gateway, so one caller cannot take every database connection
 * from everyone else: a cap on requests running at once (more wait in line, in order),
 * a cap on that line, and a token-bucket rate. A caller is the JWT's `sub`, else the
 * client address (anon). The service role is the backend's own trusted caller and is
 * not limited.
 */
export interface CallerLimits {
  /** Requests one caller may have running at once; the rest wait their turn. */
  maxInFlight: number;
  /** Requests that may wait per caller; past it a request is refused with 429. */
  maxQueued: number;
  /** Sustained requests per second per caller. */
  perSecond: number;
  /** Requests a caller may send at once before the rate applies. */
  burst: number;
}

export const DEFAULT_CALLER_LIMITS: CallerLimits = { maxInFlight: 8, maxQueued: 512, perSecond: 5000, burst: 5000 };

export type Admission =
  | { ok: true; /** Resolves when the request may run. */ turn: Promise<void>; release(): void }
  | { ok: false; reason: 'rate' | 'busy'; retryAfterSeconds: number };

interface Caller {
  running: number;
  waiting: (() => void)[];
  tokens: number;
  refilledAt: number;
}

export class CallerGate {
  private readonly callers = new Map<string, Caller>();

  constructor(
    private readonly limits: CallerLimits,
    private readonly now: () => number = () => Date.now(),
  ) {}

  admit(key: string): Admission {
    const now = this.now();
    let caller = this.callers.get(key);
    if (!caller) {
      caller = { running: 0, waiting: [], tokens: this.limits.burst, refilledAt: now };
      this.callers.set(key, caller);
    }
    caller.tokens = Math.min(
      this.limits.burst,
      caller.tokens + ((now - caller.refilledAt) / 1000) * this.limits.perSecond,
    );
    caller.refilledAt = now;
    if (caller.tokens < 1) {
      return {
        ok: false,
        reason: 'rate',
        retryAfterSeconds: Math.max(1, Math.ceil((1 - caller.tokens) / this.limits.perSecond)),
      };
    }
    if (caller.running >= this.limits.maxInFlight && caller.waiting.length >= this.limits.maxQueued) {
      return { ok: false, reason: 'busy', retryAfterSeconds: 1 };
    }
    caller.tokens -= 1;
    const entry = caller;
    let started = entry.running < this.limits.maxInFlight;
    let released = false;
    let wake: (() => void) | null = null;
    const release = (): void => {
      if (released) return;
      released = true;
      if (!started) {
        // Gone before its turn (the client hung up): leave the line, free no slot.
        entry.waiting = entry.waiting.filter((w) => w !== wake);
      } else {
        const next = entry.waiting.shift();
        // The next in line takes over this slot, so `running` stays as it is.
        if (next) next();
        else entry.running -= 1;
      }
      this.forgetIfIdle(key, entry);
    };
    if (started) {
      entry.running += 1;
      return { ok: true, turn: Promise.resolve(), release };
    }
    const turn = new Promise<void>((resolve) => {
      wake = () => {
        started = true;
        resolve();
      };
      entry.waiting.push(wake);
    });
    return { ok: true, turn, release };
  }

  /** Callers with nothing running and a full bucket hold no state worth keeping. */
  private forgetIfIdle(key: string, caller: Caller): void {
    if (caller.running > 0 || caller.waiting.length > 0) return;
    const refilled = caller.tokens + ((this.now() - caller.refilledAt) / 1000) * this.limits.perSecond;
    if (refilled >= this.limits.burst) this.callers.delete(key);
  }
}
