import path from 'node:path';
import { createNodeClient } from '../adapters/supabase/node-client.ts';
import { resolveSupabaseConfig, type ChartroomClient, type SupabaseConfig } from '../adapters/supabase/client.ts';
import { CliError, readJsonFile, writeAtomic } from './files.ts';

/**
 * Where the command talks to and as whom. The backend is the embedded one unless the same
 * two settings the app builds with say otherwise (`VITE_SUPABASE_URL`,
 * `VITE_SUPABASE_ANON_KEY`; `CHARTROOM_API_URL` names another embedded backend). The
 * session is stored per project directory, as the Supabase CLI keeps its own, in
 * `.chartroom-session.json` (mode 0600; keep it out of git).
 */

export const SESSION_FILE = '.chartroom-session.json';

interface StoredSession {
  url: string;
  accessToken: string;
  /** null when signed in with `--token` (an access token used as it is until it expires). */
  refreshToken: string | null;
  email: string | null;
}

export function apiConfig(env: NodeJS.ProcessEnv = process.env): SupabaseConfig {
  return resolveSupabaseConfig(env, { supabaseUrl: env.CHARTROOM_API_URL, supabaseAnonKey: env.CHARTROOM_ANON_KEY });
}

/** What went wrong talking to the backend, in one line. */
export function reachable(error: unknown, url: string): never {
  const message = error instanceof Error ? error.message : String(error);
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|network/i.test(message))
    throw new CliError(`cannot reach Chartroom at ${url} (is the backend running? npm start)`);
  throw new CliError(message);
}

/** An auth call's error: the backend unreachable, or `what` refused (with its reason). */
function refused(error: { message: string } | null, url: string, what: string): never {
  if (error && /fetch failed|ECONNREFUSED|ENOTFOUND|network/i.test(error.message)) reachable(error, url);
  throw new CliError(`${what}: ${error?.message ?? 'no session'}`);
}

export class Session {
  private constructor(
    readonly dir: string,
    readonly config: SupabaseConfig,
    readonly client: ChartroomClient,
    readonly userId: string,
    readonly email: string | null,
  ) {}

  private static file(dir: string): string {
    return path.join(dir, SESSION_FILE);
  }

  private static async store(dir: string, stored: StoredSession): Promise<void> {
    await writeAtomic(Session.file(dir), `${JSON.stringify(stored, null, 2)}\n`, 0o600);
  }

  /** Signs in with email and password, or takes an access token as it is; stores the session. */
  static async login(
    dir: string,
    how: { email: string; password: string } | { token: string },
    config = apiConfig(),
  ): Promise<Session> {
    if ('token' in how) {
      const client = createNodeClient(config, how.token);
      const { data, error } = await client.auth.getUser(how.token).catch((e: unknown) => reachable(e, config.url));
      if (error || !data.user) refused(error, config.url, 'the token was refused');
      await Session.store(dir, {
        url: config.url,
        accessToken: how.token,
        refreshToken: null,
        email: data.user.email ?? null,
      });
      return new Session(dir, config, client, data.user.id, data.user.email ?? null);
    }
    const client = createNodeClient(config);
    const { data, error } = await client.auth
      .signInWithPassword({ email: how.email, password: how.password })
      .catch((e: unknown) => reachable(e, config.url));
    if (error || !data.session) refused(error, config.url, 'sign-in failed');
    await Session.store(dir, {
      url: config.url,
      accessToken: data.session.access_token,
      refreshToken: data.session.refresh_token,
      email: data.user.email ?? null,
    });
    return new Session(dir, config, client, data.user.id, data.user.email ?? null);
  }

  /** The stored session, refreshed when it can be (and stored again); a clear error when there is none. */
  static async resume(dir: string, config = apiConfig()): Promise<Session> {
    const stored = await readJsonFile<StoredSession | null>(Session.file(dir), null);
    if (!stored || typeof stored.accessToken !== 'string')
      throw new CliError('not signed in: run `chartroom login` first');
    if (stored.url !== config.url)
      throw new CliError(`signed in to ${stored.url}, not ${config.url}: run \`chartroom login\` again`);
    if (stored.refreshToken === null) {
      const client = createNodeClient(config, stored.accessToken);
      const { data, error } = await client.auth
        .getUser(stored.accessToken)
        .catch((e: unknown) => reachable(e, config.url));
      if (error || !data.user)
        refused(error, config.url, 'the stored token is no longer valid (run `chartroom login` again)');
      await client.realtime.setAuth(stored.accessToken);
      return new Session(dir, config, client, data.user.id, stored.email);
    }
    const client = createNodeClient(config);
    const { data, error } = await client.auth
      .setSession({ access_token: stored.accessToken, refresh_token: stored.refreshToken })
      .catch((e: unknown) => reachable(e, config.url));
    if (error || !data.session || !data.user)
      refused(error, config.url, 'the stored session has ended (run `chartroom login` again)');
    await Session.store(dir, {
      ...stored,
      accessToken: data.session.access_token,
      refreshToken: data.session.refresh_token,
    });
    return new Session(dir, config, client, data.user.id, stored.email);
  }

  async close(): Promise<void> {
    await this.client.removeAllChannels();
    await this.client.realtime.disconnect();
  }
}
