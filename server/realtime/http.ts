import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';
import { PayloadTooLargeError, readBody, sendEmpty, sendJson, type RequestContext } from '../gateway/http.ts';
import { checkWrite } from './authorization.ts';
import { PAYLOAD_TOO_LARGE } from './channel.ts';
import { senderOf, stamped } from './stamp.ts';
import type { Hub } from './hub.ts';
import type { Identity } from './tokens.ts';

/**
 * The REST broadcast API: POST /api/broadcast with a batch of messages, and
 * POST /api/broadcast/<topic>/events/<event> with the raw payload. Private messages
 * need the caller's INSERT policy on realtime.messages, as on hosted. Every message is
 * stamped with its sender (the token's user) as on the socket, so a receiver's check of
 * a payload's `userId` against `meta.sender` holds whichever way the message came.
 */
export interface BroadcastApi {
  pool: pg.Pool;
  hub: Hub;
  maxPayloadBytes: number;
  maxBodyBytes: number;
  log: (line: string) => void;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function identityOf(ctx: RequestContext): Identity {
  return {
    role: ctx.role,
    claims: ctx.claims,
    exp: typeof ctx.claims.exp === 'number' ? ctx.claims.exp : null,
    token: ctx.token,
  };
}

async function mayWrite(api: BroadcastApi, ctx: RequestContext, topic: string): Promise<boolean> {
  // service_role bypasses RLS in the database too; skipping the round trip is only a shortcut.
  if (ctx.role === 'service_role') return true;
  try {
    return (await checkWrite(api.pool, identityOf(ctx), topic, ['broadcast'])).broadcast === true;
  } catch (error) {
    api.log(`[realtime] RlsPolicyError on ${topic}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

async function jsonBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<{ value: unknown } | null> {
  let raw: Buffer;
  try {
    raw = await readBody(req, limit);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) {
      sendJson(res, 413, { message: PAYLOAD_TOO_LARGE });
      return null;
    }
    throw error;
  }
  try {
    return { value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    sendJson(res, 400, { message: 'Request body is not valid JSON' });
    return null;
  }
}

function byteSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/** POST /api/broadcast {messages:[{topic, event, payload, private}]} -> 202. */
export async function batchBroadcast(
  api: BroadcastApi,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
): Promise<void> {
  const body = await jsonBody(req, res, api.maxBodyBytes);
  if (!body) return;
  const messages = isObject(body.value) ? body.value.messages : undefined;
  if (!Array.isArray(messages) || messages.length === 0) {
    sendJson(res, 422, { errors: { messages: ["can't be blank"] } });
    return;
  }
  // Errors per message in the changeset shape hosted renders: one map per entry.
  let invalid = false;
  const errors = messages.map((m: unknown) => {
    const e: Record<string, string[]> = {};
    const entry = isObject(m) ? m : {};
    for (const field of ['topic', 'event'] as const) {
      if (typeof entry[field] !== 'string' || entry[field] === '') e[field] = ["can't be blank"];
    }
    if (!isObject(entry.payload))
      e.payload = entry.payload === undefined || entry.payload === null ? ["can't be blank"] : ['is invalid'];
    else if (byteSize(entry.payload) > api.maxPayloadBytes) e.payload = [PAYLOAD_TOO_LARGE];
    if (entry.private !== undefined && typeof entry.private !== 'boolean') e.private = ['is invalid'];
    if (Object.keys(e).length > 0) invalid = true;
    return e;
  });
  if (invalid) {
    sendJson(res, 422, { errors: { messages: errors } });
    return;
  }
  const allowed = new Map<string, boolean>();
  for (const m of messages as Record<string, unknown>[]) {
    const topic = m.topic as string;
    const isPrivate = m.private === true;
    if (isPrivate) {
      if (!allowed.has(topic)) allowed.set(topic, await mayWrite(api, ctx, topic));
      // Hosted drops private messages the caller may not send and still answers 202.
      if (!allowed.get(topic)) continue;
    }
    const meta = stamped(typeof m.id === 'string' ? { id: m.id } : null, senderOf(ctx.claims));
    const payload: Record<string, unknown> = { type: 'broadcast', event: m.event, payload: m.payload, meta };
    api.hub.broadcast(topic, isPrivate, { kind: 'json', payload });
  }
  sendEmpty(res, 202);
}

/** POST /api/broadcast/<topic>/events/<event>[?private=true] with the raw payload -> 202. */
export async function singleBroadcast(
  api: BroadcastApi,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  topic: string,
  event: string,
): Promise<void> {
  const isPrivate = ctx.url.searchParams.get('private') === 'true';
  const binary = (req.headers['content-type'] ?? '').startsWith('application/octet-stream');
  let message: Parameters<Hub['broadcast']>[2];
  if (binary) {
    let raw: Buffer;
    try {
      raw = await readBody(req, api.maxPayloadBytes);
    } catch (error) {
      if (!(error instanceof PayloadTooLargeError)) throw error;
      sendJson(res, 422, { errors: { payload: [PAYLOAD_TOO_LARGE] } });
      return;
    }
    const metadata = stamped(null, senderOf(ctx.claims));
    message = { kind: 'user', user: { event, encoding: 'binary', body: raw, metadata } };
  } else {
    const body = await jsonBody(req, res, api.maxBodyBytes);
    if (!body) return;
    if (body.value === null || body.value === undefined) {
      sendJson(res, 422, { errors: { payload: ["can't be blank"] } });
      return;
    }
    if (byteSize(body.value) > api.maxPayloadBytes) {
      sendJson(res, 422, { errors: { payload: [PAYLOAD_TOO_LARGE] } });
      return;
    }
    const meta = stamped(null, senderOf(ctx.claims));
    message = { kind: 'json', payload: { type: 'broadcast', event, payload: body.value, meta } };
  }
  if (isPrivate && !(await mayWrite(api, ctx, topic))) {
    sendJson(res, 403, { message: 'Unauthorized' });
    return;
  }
  api.hub.broadcast(topic, isPrivate, message);
  sendEmpty(res, 202);
}
