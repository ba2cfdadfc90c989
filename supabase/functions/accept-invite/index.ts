// Accepts a project invite for the signed-in caller. Deploys unchanged to hosted
// Supabase; in the embedded backend it runs on Node through the Deno shim.
//
// POST { "token": "<invite token>" } with the caller's JWT
//   200 { project_id, role, already_member }
//   400 invalid_request     the body is not { token: string }
//   401 not_signed_in       no valid user behind the JWT
//   403 guest_not_allowed   anonymous (guest) sessions cannot join as members
//   404 invite_not_found    unknown token
//   409 invite_used_up      every use has been taken
//   410 invite_expired / invite_revoked
import 'jsr:@supabase/functions-js/edge-runtime.d.ts';
import { createClient } from 'npm:@supabase/supabase-js@2';
import { corsHeaders } from 'npm:@supabase/supabase-js@2/cors';

const failures: Record<string, { status: number; message: string }> = {
  invite_not_found: { status: 404, message: 'This invite link is not valid.' },
  invite_expired: { status: 410, message: 'This invite link has expired. Ask an owner for a new one.' },
  invite_revoked: { status: 410, message: 'This invite link was revoked. Ask an owner for a new one.' },
  invite_used_up: { status: 409, message: 'This invite link has already been used as many times as allowed.' },
};

function reply(status: number, body: unknown): Response {
  return Response.json(body, { status, headers: corsHeaders });
}

function failure(status: number, code: string, message: string): Response {
  return reply(status, { code, message });
}

Deno.serve(async (req: Request) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders });
  if (req.method !== 'POST') return failure(405, 'method_not_allowed', 'Use POST.');

  let token: unknown;
  try {
    token = ((await req.json()) as { token?: unknown }).token;
  } catch {
    return failure(400, 'invalid_request', 'The body must be JSON: { "token": "..." }.');
  }
  if (typeof token !== 'string' || !/^[0-9a-f]{16,128}$/.test(token)) {
    return failure(400, 'invalid_request', 'The invite token is missing or malformed.');
  }

  const url = Deno.env.get('SUPABASE_URL') ?? '';
  const anonKey = Deno.env.get('SUPABASE_ANON_KEY') ?? '';
  const serviceKey = Deno.env.get('SUPABASE_SERVICE_ROLE_KEY') ?? '';
  const authorization = req.headers.get('Authorization') ?? '';
  const options = { auth: { persistSession: false, autoRefreshToken: false } };

  const asCaller = createClient(url, anonKey, { ...options, global: { headers: { Authorization: authorization } } });
  const { data: who, error: whoError } = await asCaller.auth.getUser();
  if (whoError || !who.user) return failure(401, 'not_signed_in', 'Sign in to accept an invite.');
  if (who.user.is_anonymous) {
    return failure(
      403,
      'guest_not_allowed',
      'Guests cannot join a project. Create an account, then open the invite again.',
    );
  }

  const admin = createClient(url, serviceKey, options);
  const { data, error } = await admin.rpc('accept_project_invite', { p_token: token, p_user: who.user.id });
  if (error) {
    const known = failures[error.message];
    if (known) return failure(known.status, error.message, known.message);
    console.error('accept-invite failed', error);
    return failure(500, 'internal_error', 'The invite could not be accepted. Try again.');
  }
  const row = (data as { project_id: string; role: string; already_member: boolean }[])[0];
  if (!row) return failure(500, 'internal_error', 'The invite could not be accepted. Try again.');
  return reply(200, row);
});
