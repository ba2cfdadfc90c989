import type pg from 'pg';
import WebSocket from 'ws';
import { createMachine, assign } from 'xstate';
import { backendInfo, type AnyClient } from '../setup/clients.ts';

/** Helpers for the `inspect` edge function's tests and bench. */

export const inspectUrl = (key: string, ws = true) =>
  `${backendInfo().url.replace(/^http/, ws ? 'ws' : 'http')}/functions/v1/inspect?key=${encodeURIComponent(key)}`;

/** A source created by an owner through the RPC; the key as the app would show it once. */
export async function createSource(
  owner: AnyClient,
  project: string,
  options: { maxEvents?: number } = {},
): Promise<{ id: string; key: string }> {
  const r = await owner.rpc('create_inspection_source', {
    p_project: project,
    p_name: 'app under test',
    ...(options.maxEvents ? { p_max_events: options.maxEvents } : {}),
  });
  if (r.error) throw new Error(r.error.message);
  const data = r.data as { source: { id: string }; key: string };
  return { id: data.source.id, key: data.key };
}

export async function storedCount(db: pg.Client, source: string): Promise<number> {
  const r = await db.query<{ n: string }>('select count(*) as n from public.inspection_events where source_id = $1', [
    source,
  ]);
  return Number(r.rows[0]!.n);
}

/** A real XState machine: a toggle that counts its flips. */
export const toggleMachine = createMachine({
  id: 'toggle',
  initial: 'off',
  context: { flips: 0 },
  states: {
    off: { on: { 'switch.flip': { target: 'on', actions: assign({ flips: ({ context }) => context.flips + 1 }) } } },
    on: { on: { 'switch.flip': { target: 'off', actions: assign({ flips: ({ context }) => context.flips + 1 }) } } },
  },
});

/** A protocol event, as the stock inspector would send it. */
export const protocolEvent = (n: number, sessionId = 'x:0') => ({
  type: '@xstate.event',
  sessionId,
  rootId: 'x:0',
  _version: '0.7.2',
  createdAt: String(Date.now()),
  event: { type: 'tick', n },
});

export interface RawSocket {
  ws: WebSocket;
  /** Text frames the function sent, parsed. */
  received: unknown[];
  closed: Promise<{ code: number; reason: string }>;
}

/** A plain ws client on the function (what the stock inspector does, with hooks for tests). */
export function openRaw(key: string): Promise<RawSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(inspectUrl(key));
    const received: unknown[] = [];
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      ws.once('close', (code, reason) => done({ code, reason: reason.toString() })),
    );
    ws.on('message', (data) => received.push(JSON.parse((data as Buffer).toString('utf8'))));
    ws.once('open', () => resolve({ ws, received, closed }));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, text })));
    });
  });
}
