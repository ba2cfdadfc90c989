import { benchBackend } from '../backend.ts';
import { ms, since, summarize, type BenchContext } from '../lib.ts';

/**
 * Auth: password sign-in (dominated by bcrypt at cost 10, as GoTrue), token refresh
 * (rotation in one transaction), GET /user, and anonymous sign-in, all over HTTP through
 * the gateway, sequentially, on a fresh backend.
 */

interface Session {
  access_token: string;
  refresh_token: string;
}

async function post(url: string, anonKey: string, body: unknown): Promise<{ ms: number; json: Session }> {
  const start = process.hrtime.bigint();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      apikey: anonKey,
      authorization: `Bearer ${anonKey}`,
      'content-type': 'application/json',
      'x-supabase-api-version': '2024-01-01',
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Session;
  const elapsed = since(start);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return { ms: elapsed, json };
}

export async function run(ctx: BenchContext): Promise<void> {
  // Lenient limits: the bench signs in one user many times from one address.
  const backend = await benchBackend({
    auth: { signInLimit: { maxFailuresPerEmail: 1_000, maxFailuresPerIp: 1_000 } },
  });
  const auth = `${backend.url}/auth/v1`;
  const key = backend.anonKey;
  try {
    const email = 'bench@example.test';
    const password = 'bench-password';
    const signUp = await post(`${auth}/signup`, key, { email, password });

    ctx.section('auth: password sign-in (n = 50, sequential)');
    const signIns: number[] = [];
    for (let i = 0; i < 50; i++)
      signIns.push((await post(`${auth}/token?grant_type=password`, key, { email, password })).ms);
    const signIn = summarize(signIns);
    ctx.report('sign-in p50 / p99', `${ms(signIn.p50)} / ${ms(signIn.p99)}`, 'bcrypt cost 10 bound');
    ctx.report('sign-up (one, includes bcrypt hash)', ms(signUp.ms));

    ctx.section('auth: token refresh (n = 200, sequential rotation)');
    let refreshToken = signUp.json.refresh_token;
    const refreshes: number[] = [];
    for (let i = 0; i < 200; i++) {
      const { ms: elapsed, json } = await post(`${auth}/token?grant_type=refresh_token`, key, {
        refresh_token: refreshToken,
      });
      refreshes.push(elapsed);
      refreshToken = json.refresh_token;
    }
    const refresh = summarize(refreshes);
    ctx.report('refresh p50 / p99', `${ms(refresh.p50)} / ${ms(refresh.p99)}`);

    ctx.section('auth: GET /user and anonymous sign-in (n = 200 each)');
    const access = signUp.json.access_token;
    const reads: number[] = [];
    for (let i = 0; i < 200; i++) {
      const start = process.hrtime.bigint();
      const res = await fetch(`${auth}/user`, { headers: { apikey: key, authorization: `Bearer ${access}` } });
      await res.arrayBuffer();
      reads.push(since(start));
    }
    const read = summarize(reads);
    ctx.report('GET /user p50 / p99', `${ms(read.p50)} / ${ms(read.p99)}`);
    const anons: number[] = [];
    for (let i = 0; i < 200; i++) anons.push((await post(`${auth}/signup`, key, {})).ms);
    const anon = summarize(anons);
    ctx.report('anonymous sign-in p50 / p99', `${ms(anon.p50)} / ${ms(anon.p99)}`);
  } finally {
    await backend.cleanup();
  }
}
