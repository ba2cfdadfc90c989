import type { BackendConfig } from '../config.ts';

/** Limits on failed password sign-ins, counted per email address and per client IP. */
export interface SignInLimit {
  /** Failures for one email within the window before it answers 429. */
  maxFailuresPerEmail: number;
  /** Failures from one IP address within the window before it answers 429. */
  maxFailuresPerIp: number;
  windowSeconds: number;
}

/**
 * Tuning for the auth service. Everything has a production default; tests start a second
 * gateway with a shorter reuse interval, tight limits or a clock they move by hand, so
 * nothing ever waits on wall-clock time.
 */
export interface AuthTuning {
  /** Milliseconds since the epoch; every timestamp the service writes or checks uses it. */
  now?: () => number;
  /** How long a rotated refresh token may still be presented (GoTrue default: 10 s). */
  refreshReuseIntervalSeconds?: number;
  signInLimit?: Partial<SignInLimit>;
  /** Anonymous sign-ins (guest viewing); on by default because the product needs them. */
  anonymousSignIns?: boolean;
  /** bcrypt cost for new hashes (GoTrue: 10). */
  bcryptCost?: number;
}

// The tuning rides on BackendConfig so `startBackend({ auth: {...} })` reaches this service
// without a change to the shared config module: defaultConfig() spreads unknown overrides in.
declare module '../config.ts' {
  interface BackendConfig {
    /** Auth service tuning (see server/auth/options.ts). */
    auth?: AuthTuning;
  }
}

export interface AuthOptions {
  now: () => number;
  refreshReuseIntervalMs: number;
  signInLimit: SignInLimit;
  anonymousSignIns: boolean;
  autoConfirm: boolean;
  jwtSecret: string;
  jwtExpirySeconds: number;
  bcryptCost: number;
  maxBodyBytes: number;
}

export function resolveOptions(config: BackendConfig): AuthOptions {
  const tuning = config.auth ?? {};
  return {
    now: tuning.now ?? (() => Date.now()),
    refreshReuseIntervalMs: (tuning.refreshReuseIntervalSeconds ?? 10) * 1000,
    signInLimit: {
      maxFailuresPerEmail: tuning.signInLimit?.maxFailuresPerEmail ?? 5,
      // Generous per IP: a whole office (or a test run) shares one address.
      maxFailuresPerIp: tuning.signInLimit?.maxFailuresPerIp ?? 30,
      windowSeconds: tuning.signInLimit?.windowSeconds ?? 300,
    },
    anonymousSignIns: tuning.anonymousSignIns ?? true,
    autoConfirm: config.autoConfirm,
    jwtSecret: config.jwtSecret,
    jwtExpirySeconds: config.jwtExpiry,
    bcryptCost: tuning.bcryptCost ?? 10,
    maxBodyBytes: config.maxBodyBytes,
  };
}
