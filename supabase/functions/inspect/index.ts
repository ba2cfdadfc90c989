// The ingest endpoint for live inspection: a team's app reports its actors here with the
// stock @statelyai/inspect package, and every member of the project watches them in
// Chartroom. Deploys unchanged to hosted Supabase; in the embedded backend it runs on
// Node through the Deno shim (Deno.upgradeWebSocket included).
//
//   const inspector = createWebSocketInspector({ url: '<gateway>/functions/v1/inspect?key=<key>' });
//   createActor(machine, { inspect: inspector.inspect }).start();
//
// GET  (WebSocket upgrade) ?key=<key>   one inspection event per text frame, as the stock
//                                       inspector sends them; the socket is one session.
// POST ?key=<key> { events: [...], session?: "<label>" } (or a bare array of events)
//   200 { stored, invalid }             events of one POST client label share a session
//   400 invalid_request                 not JSON, not an array, over maxPostEvents
//   401 invalid_key                     wrong or revoked key: nothing is stored
//   429 rate_limited                    over the source's rate: nothing of the batch is stored
//
// On a socket: a frame over maxFrameBytes closes it with 4009; a frame that is not a
// protocol event is counted and dropped; frames over the source's rate are dropped and
// answered with one `@chartroom.error` { code: 'rate_limited' } per second; revoking the
// key closes the socket with 4001 at once (the revoke broadcasts on inspect:<project>,
// which this function follows as the service role).
import 'jsr:@supabase/functions-js/edge-runtime.d.ts';
import { createClient, type RealtimeChannel, type SupabaseClient } from 'npm:@supabase/supabase-js@2';
import { corsHeaders } from 'npm:@supabase/supabase-js@2/cors';
import { INSPECT_CLOSE, INSPECT_LIMITS, INSPECT_TOPIC } from '../../../src/lib/inspection/protocol.ts';
import { endSession, Ingest, openSession } from './ingest.ts';

const admin: SupabaseClient = createClient(
  Deno.env.get('SUPABASE_URL') ?? '',
  Deno.env.get('SUPABASE_SERVICE_ROLE_KEY') ?? '',
  { auth: { persistSession: false, autoRefreshToken: false } },
);

function failure(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ code, message }, { status, headers: { ...corsHeaders, ...headers } });
}

const invalidKey = () => failure(401, 'invalid_key', 'The inspection key is wrong or has been revoked.');

// Revocation: one service-role subscription per project with open sockets. ------------

interface Watch {
  channel: RealtimeChannel;
  /** Close callbacks of open sockets, by source. */
  sockets: Map<string, Set<() => void>>;
}
const watches = new Map<string, Watch>();

/** Calls `close` as soon as the source is revoked; returns the unsubscribe. */
async function onRevoked(projectId: string, sourceId: string, close: () => void): Promise<() => void> {
  let watch = watches.get(projectId);
  if (!watch) {
    const sockets = new Map<string, Set<() => void>>();
    const channel = admin.channel(INSPECT_TOPIC(projectId), { config: { private: true } });
    channel.on('broadcast', { event: 'source_revoked' }, ({ payload }) => {
      for (const stop of sockets.get((payload as { source_id?: string }).source_id ?? '') ?? []) stop();
    });
    watch = { channel, sockets };
    watches.set(projectId, watch);
    const current = watch;
    await new Promise<void>((resolve) => {
      channel.subscribe((status) => {
        if (status === 'SUBSCRIBED') resolve();
        else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') {
          console.error(`inspect: following ${INSPECT_TOPIC(projectId)} failed (${status})`);
          resolve();
        }
      });
    });
    if (watches.get(projectId) !== current) return () => undefined;
  }
  const set = watch.sockets.get(sourceId) ?? new Set();
  watch.sockets.set(sourceId, set);
  set.add(close);
  const current = watch;
  return () => {
    set.delete(close);
    if (set.size === 0) current.sockets.delete(sourceId);
    if (current.sockets.size === 0 && watches.get(projectId) === current) {
      watches.delete(projectId);
      void admin.removeChannel(current.channel);
    }
  };
}

// WebSocket ------------------------------------------------------------------------------

async function socketSession(req: Request, key: string): Promise<Response> {
  const opened = await openSession(admin, key, `ws:${crypto.randomUUID()}`);
  if (!opened) return invalidKey();
  const { socket, response } = Deno.upgradeWebSocket(req);
  let closed = false;
  const close = (code: number, reason: string) => {
    if (closed) return;
    closed = true;
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
  };
  const ingest = new Ingest(admin, key, opened, (why) =>
    why === 'revoked'
      ? close(INSPECT_CLOSE.revoked, 'The inspection key was revoked')
      : close(INSPECT_CLOSE.unavailable, 'Storing events failed; reconnect later'),
  );
  const unwatch = onRevoked(opened.project_id, opened.source_id, () =>
    close(INSPECT_CLOSE.revoked, 'The inspection key was revoked'),
  );
  let warnedAt = 0;
  socket.onmessage = (event: MessageEvent) => {
    if (closed) return;
    const size = typeof event.data === 'string' ? new TextEncoder().encode(event.data).length : byteSize(event.data);
    if (size > INSPECT_LIMITS.maxFrameBytes) {
      close(INSPECT_CLOSE.frameTooLarge, `Frame over ${INSPECT_LIMITS.maxFrameBytes} bytes`);
      return;
    }
    if (typeof event.data !== 'string') {
      ingest.counters.received++;
      ingest.counters.invalid++;
      return;
    }
    if (!ingest.admit(1)) {
      const now = Date.now();
      if (now - warnedAt >= 1000) {
        warnedAt = now;
        socket.send(
          JSON.stringify({
            type: '@chartroom.error',
            code: 'rate_limited',
            message: `Over ${opened.rate_per_second} events/s for this source: events are being dropped`,
            throttled: ingest.counters.throttled,
          }),
        );
      }
      return;
    }
    ingest.text(event.data);
  };
  socket.onclose = () => {
    closed = true;
    ingest.end();
    void unwatch.then((stop) => stop());
    EdgeRuntime.waitUntil(ingest.drain().then(() => endSession(admin, opened.session.id)));
  };
  return response;
}

function byteSize(data: unknown): number {
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (data instanceof Blob) return data.size;
  return 0;
}

// POST -----------------------------------------------------------------------------------

async function postBatch(req: Request, key: string): Promise<Response> {
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return failure(400, 'invalid_request', 'The body must be JSON: { "events": [...] } or an array of events.');
  }
  const wrapped = typeof body === 'object' && body !== null && !Array.isArray(body);
  const events = wrapped ? (body as { events?: unknown }).events : body;
  const label = wrapped ? (body as { session?: unknown }).session : undefined;
  if (!Array.isArray(events)) return failure(400, 'invalid_request', 'events must be an array.');
  if (events.length > INSPECT_LIMITS.maxPostEvents)
    return failure(400, 'invalid_request', `At most ${INSPECT_LIMITS.maxPostEvents} events per POST.`);
  if (label !== undefined && (typeof label !== 'string' || label.length < 1 || label.length > 100))
    return failure(400, 'invalid_request', 'session must be a string of 1 to 100 characters.');
  const opened = await openSession(admin, key, label ? `post:${label}` : `post:${crypto.randomUUID()}`);
  if (!opened) return invalidKey();
  let stop: string | null = null;
  const ingest = new Ingest(admin, key, opened, (why) => (stop = why));
  try {
    if (!ingest.admit(events.length))
      return failure(429, 'rate_limited', `Over ${opened.rate_per_second} events/s for this source.`, {
        'retry-after': '1',
      });
    for (const event of events) ingest.offer(event);
    await ingest.drain();
  } finally {
    ingest.end();
  }
  if (stop === 'revoked') return invalidKey();
  if (stop === 'failed') return failure(503, 'unavailable', 'Storing the events failed. Try again.');
  return Response.json({ stored: ingest.counters.stored, invalid: ingest.counters.invalid }, { headers: corsHeaders });
}

Deno.serve(async (req: Request) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders });
  try {
    return await route(req);
  } catch (error) {
    console.error(`inspect: ${error instanceof Error ? error.message : String(error)}`);
    return failure(503, 'unavailable', 'Inspection is unavailable right now. Try again.');
  }
});

function route(req: Request): Promise<Response> | Response {
  const key = new URL(req.url).searchParams.get('key') ?? '';
  const upgrade = req.headers.get('upgrade')?.toLowerCase() === 'websocket';
  if (req.method === 'GET' && upgrade) return key ? socketSession(req, key) : invalidKey();
  if (req.method !== 'POST')
    return failure(405, 'method_not_allowed', 'Open a WebSocket (GET with Upgrade) or POST a batch of events.');
  return key ? postBatch(req, key) : invalidKey();
}
