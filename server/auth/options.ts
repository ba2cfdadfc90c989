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
  /** `enable_signup = false`: new users only through the admin API and invites. */
  disableSignup?: boolean;
  /** Where verification links land by default (the CLI's `site_url`). */
  siteUrl?: string;
  /** Seconds between two mails of one kind to one user (CLI `max_frequency`, 1 s). */
  emailMaxFrequencySeconds?: number;
  /** Lifetime of emailed codes and links in seconds (CLI `otp_expiry`, 3600). */
  otpExpirySeconds?: number;
  /** `double_confirm_changes`: an email change needs both addresses to confirm (default on). */
  secureEmailChange?: boolean;
  /** `secure_password_change`: a password change needs a /reauthenticate nonce unless the session is fresh. */
  securePasswordChange?: boolean;
  /** A JWK file (the CLI's `signing_keys_path`): access tokens are signed with its first key. */
  signingKeysPath?: string;
  /** Sign with an ES256 key kept in `<dataDir>/signing_keys.json` (made on first start). */
  asymmetricKeys?: boolean;
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
  disableSignup: boolean;
  siteUrl: string;
  emailMaxFrequencyMs: number;
  otpExpiryMs: number;
  otpLength: number;
  secureEmailChange: boolean;
  securePasswordChange: boolean;
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
    disableSignup: tuning.disableSignup ?? false,
    siteUrl: tuning.siteUrl ?? 'http://127.0.0.1:3000',
    emailMaxFrequencyMs: (tuning.emailMaxFrequencySeconds ?? 1) * 1000,
    otpExpiryMs: (tuning.otpExpirySeconds ?? 3600) * 1000,
    otpLength: 6,
    secureEmailChange: tuning.secureEmailChange ?? true,
    securePasswordChange: tuning.securePasswordChange ?? false,
  };
}
