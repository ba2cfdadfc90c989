import { verifyAccessToken, type Identity } from './tokens.ts';

/**
 * Re-confirms a channel's token at its expiry (at most every `intervalMs`), as hosted
 * does: when it no longer verifies, `onInvalid` gets the reason (the channel ends).
 */
export class TokenWatch {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly secret: string,
    private readonly intervalMs: number,
    private readonly onInvalid: (reason: string) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** Watches `identity`'s token from now on (replacing any earlier one). */
  watch(identity: Identity): void {
    this.stop();
    const { exp, token } = identity;
    if (exp === null || token === null) return;
    const untilExpiry = Math.max(0, exp * 1000 - Date.now());
    const wait = Math.min(this.intervalMs, untilExpiry + 50);
    this.timer = setTimeout(() => {
      this.timer = null;
      try {
        verifyAccessToken(token, this.secret);
        this.watch(identity);
      } catch (error) {
        try {
          this.onInvalid(error instanceof Error ? error.message : String(error));
        } catch (failure) {
          this.log(`[realtime] token expiry shutdown failed: ${String(failure)}`);
        }
      }
    }, wait);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
