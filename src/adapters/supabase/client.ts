import { createClient } from '@supabase/supabase-js';

/**
 * Where the app finds its Supabase. Three sources, most specific first:
 * 1. build-time env `VITE_SUPABASE_URL` / `VITE_SUPABASE_ANON_KEY`: a hosted project;
 * 2. `window.__CHARTROOM_CONFIG__`, written into index.html by the server that serves
 *    the app (server/start.ts), so one build follows the embedded API to any port;
 * 3. the embedded backend's defaults, which are the Supabase CLI's local stack.
 */

export interface SupabaseConfig {
  url: string;
  anonKey: string;
}

/** What the serving process may inject at runtime; see `runtimeConfigScript` in server/start.ts. */
export interface RuntimeConfig {
  supabaseUrl?: string;
  supabaseAnonKey?: string;
  /** The embedded backend's local mailbox page (absent against hosted Supabase). */
  mailboxUrl?: string;
}

declare global {
  interface Window {
    __CHARTROOM_CONFIG__?: RuntimeConfig;
  }
}

export const EMBEDDED_DEFAULTS: SupabaseConfig = {
  url: 'http://127.0.0.1:54321',
  // The Supabase CLI's public demo anon key (role anon, signed with the demo secret).
  anonKey:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0',
};

interface BuildEnv {
  VITE_SUPABASE_URL?: string;
  VITE_SUPABASE_ANON_KEY?: string;
}

const present = (value: string | undefined): string | undefined =>
  value && value.trim() !== '' ? value.trim() : undefined;

export function resolveSupabaseConfig(env: BuildEnv, runtime: RuntimeConfig | undefined): SupabaseConfig {
  const hostedUrl = present(env.VITE_SUPABASE_URL);
  if (hostedUrl) return { url: hostedUrl, anonKey: present(env.VITE_SUPABASE_ANON_KEY) ?? EMBEDDED_DEFAULTS.anonKey };
  return {
    url: present(runtime?.supabaseUrl) ?? EMBEDDED_DEFAULTS.url,
    anonKey: present(runtime?.supabaseAnonKey) ?? EMBEDDED_DEFAULTS.anonKey,
  };
}

/** The client without a generated database schema (tables are typed at each call site). */
export type ChartroomClient = ReturnType<typeof createClient>;

export function createBrowserClient(config: SupabaseConfig): ChartroomClient {
  // Sessions persist in localStorage and sync across tabs (supabase-js's BroadcastChannel).
  return createClient(config.url, config.anonKey, {
    auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false },
  });
}

let browserClient: ChartroomClient | null = null;

/** The app's one client, created on first use from the resolved configuration. */
export function supabaseClient(): ChartroomClient {
  const env = import.meta.env as BuildEnv;
  browserClient ??= createBrowserClient(
    resolveSupabaseConfig(env, typeof window === 'undefined' ? undefined : window.__CHARTROOM_CONFIG__),
  );
  return browserClient;
}

/** The API URL the app's client talks to (the gateway; hosted: the project URL). */
export function supabaseApiUrl(): string {
  const env = import.meta.env as BuildEnv;
  return resolveSupabaseConfig(env, typeof window === 'undefined' ? undefined : window.__CHARTROOM_CONFIG__).url;
}
