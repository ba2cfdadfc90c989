import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useFixtureGateway } from './functions-helpers.ts';

/**
 * Deno.upgradeWebSocket in the embedded runtime, with hosted's semantics: the gateway's
 * /functions/v1/<name> upgrade reaches the function's worker; the function's response
 * (status 101) completes the handshake and its socket (onopen/onmessage/onclose, send,
 * close) talks to the client; any other answer reaches the client as plain HTTP.
 * Serves tests/fixtures/functions/supabase/functions/ws-echo.
 */

const gateway = useFixtureGateway({ dirPrefix: 'functions-ws-' });

const wsUrl = (path: string) => `${gateway.url.replace(/^http/, 'ws')}/functions/v1/${path}`;

interface Opened {
  ws: WebSocket;
  first: unknown;
  messages: (string | Buffer)[];
  next: () => Promise<string | Buffer>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Connects and waits for the function's greeting (sent from its onopen). */
function connect(path: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(path));
    const messages: (string | Buffer)[] = [];
    const waiters: ((m: string | Buffer) => void)[] = [];
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      ws.once('close', (code, reason) => done({ code, reason: reason.toString() })),
    );
    ws.on('message', (data, binary) => {
      const message = binary ? (data as Buffer) : (data as Buffer).toString('utf8');
      const waiter = waiters.shift();
      if (waiter) waiter(message);
      else messages.push(message);
    });
    const next = () =>
      new Promise<string | Buffer>((done) => {
        const queued = messages.shift();
        if (queued !== undefined) done(queued);
        else waiters.push(done);
      });
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('open', () => {
      void next().then((first) => resolve({ ws, first: JSON.parse(first.toString()), messages, next, closed }));
    });
  });
}

/** The plain HTTP answer to an upgrade the function refused. */
function refused(path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(path));
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
  });
}

describe('functions: Deno.upgradeWebSocket', () => {
  it('completes the handshake: onopen fires, the handler saw status 101 and its own path', async () => {
    const { ws, first } = await connect('ws-echo/sub?ok');
    expect(first).toEqual({ hello: '/ws-echo/sub', status: 101 });
    ws.close();
  });

  it('carries text and binary frames both ways, in order', async () => {
    const { ws, next } = await connect('ws-echo?ok');
    for (let i = 0; i < 20; i++) ws.send(`m${i}`);
    for (let i = 0; i < 20; i++) expect(await next()).toBe(`echo:m${i}`);
    ws.send(Buffer.from([1, 2, 3]));
    expect([...((await next()) as Buffer)]).toEqual([3, 2, 1]);
    ws.close();
  });

  it("socket.close(code, reason) reaches the client; the client's close reaches onclose", async () => {
    const { ws, closed } = await connect('ws-echo?ok');
    ws.send('close');
    expect(await closed).toEqual({ code: 4000, reason: 'asked to close' });
    const other = await connect('ws-echo?ok');
    other.ws.close(4100, 'bye');
    await other.closed;
    await expect.poll(() => gateway.logs.some((line) => line.includes('ws-echo closed 4100'))).toBe(true);
  });

  it('an answer other than the upgrade reaches the client as plain HTTP (401 with its body)', async () => {
    expect(await refused('ws-echo')).toEqual({ status: 401, body: { message: 'no key' } });
  });

  it('a plain request cannot upgrade: Deno.upgradeWebSocket throws TypeError as on hosted', async () => {
    const res = await fetch(`${gateway.url}/functions/v1/ws-echo?try`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ refused: "Invalid Header: 'upgrade' header must contain 'websocket'" });
  });

  it("unknown functions and verify_jwt refuse the upgrade in the relay's shapes", async () => {
    expect(await refused('no-such-fn')).toEqual({
      status: 404,
      body: { code: 'NOT_FOUND', message: 'Requested function was not found' },
    });
    expect(await refused('echo')).toEqual({
      status: 401,
      body: { code: 401, message: 'Missing authorization header' },
    });
  });

  it('many sockets on one worker stay apart', async () => {
    const sockets = await Promise.all(Array.from({ length: 8 }, () => connect('ws-echo?ok')));
    sockets.forEach(({ ws }, i) => ws.send(`from${i}`));
    const answers = await Promise.all(sockets.map(({ next }) => next()));
    expect(answers).toEqual(sockets.map((_, i) => `echo:from${i}`));
    for (const { ws } of sockets) ws.close();
  });
});
