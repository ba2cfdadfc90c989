import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { backoffDelay, connectionMachine, MAX_ATTEMPTS } from '../../machines/account/connection.machine.ts';
import { fakeSocket, settle } from './connection.fakes.ts';

function start() {
  const socket = fakeSocket();
  const actor = createActor(connectionMachine.provide({ actors: socket.actors })).start();
  return { socket, actor, snap: () => actor.getSnapshot() };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connection machine', () => {
  it('starts connecting and goes live when the socket opens', () => {
    const { socket, snap } = start();
    expect(snap().value).toBe('connecting');
    expect(snap().hasTag('down')).toBe(false);
    socket.emit({ type: 'socket.opened' });
    expect(snap().hasTag('live')).toBe(true);
  });

  it('reconnects with a growing backoff after a drop, and is live again on open', async () => {
    const { socket, snap } = start();
    socket.emit({ type: 'socket.opened' });
    socket.emit({ type: 'socket.closed', clean: false });
    expect(snap().matches({ reconnecting: 'waiting' })).toBe(true);
    expect(snap().hasTag('down')).toBe(true);
    expect(snap().context.reason).toMatch(/Reconnecting/);

    await vi.advanceTimersByTimeAsync(backoffDelay(0) - 1);
    expect(socket.reconnects()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(socket.reconnects()).toBe(1);
    expect(snap().context.attempts).toBe(1);
    // The second wait is twice the first.
    await vi.advanceTimersByTimeAsync(backoffDelay(1) - 1);
    expect(socket.reconnects()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(socket.reconnects()).toBe(2);

    socket.emit({ type: 'socket.opened' });
    expect(snap().value).toBe('live');
    expect(snap().context).toEqual({ attempts: 0, reason: null });
  });

  it('gives up to offline after the last attempt, and retries when asked', async () => {
    const { socket, actor, snap } = start();
    socket.emit({ type: 'socket.errored', message: 'connection refused' });
    expect(snap().context.reason).toContain('connection refused');
    for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
      await vi.advanceTimersByTimeAsync(backoffDelay(i));
      await settle();
    }
    expect(snap().value).toBe('offline');
    expect(snap().context.reason).toMatch(/Can't reach/);
    actor.send({ type: 'connection.retry' });
    await settle();
    expect(socket.reconnects()).toBe(MAX_ATTEMPTS + 1);
    expect(snap().matches('reconnecting')).toBe(true);
  });

  it('goes offline when the network goes, and straight to a retry when it returns', async () => {
    const { socket, snap } = start();
    socket.emit({ type: 'socket.opened' });
    socket.emit({ type: 'network.lost' });
    expect(snap().hasTag('offline')).toBe(true);
    expect(snap().context.reason).toMatch(/offline/);
    socket.emit({ type: 'network.restored' });
    await settle();
    expect(socket.reconnects()).toBe(1);
    socket.emit({ type: 'socket.opened' });
    expect(snap().value).toBe('live');
  });

  it('a clean close (no channel needs the socket) is idle, not down', () => {
    const { socket, snap } = start();
    socket.emit({ type: 'socket.opened' });
    socket.emit({ type: 'socket.closed', clean: true });
    expect(snap().value).toBe('idle');
    expect(snap().hasTag('down')).toBe(false);
  });

  it('retries slowly in the background while offline', async () => {
    const { socket, snap } = start();
    socket.emit({ type: 'network.lost' });
    await vi.advanceTimersByTimeAsync(60_000);
    await settle();
    expect(socket.reconnects()).toBe(1);
    expect(snap().matches('reconnecting')).toBe(true);
  });

  it('is live when a retry finds the socket open, though no socket.opened came', async () => {
    const socket = fakeSocket({ hold: true });
    const actor = createActor(connectionMachine.provide({ actors: socket.actors })).start();
    socket.emit({ type: 'socket.opened' });
    socket.emit({ type: 'network.lost' });
    await settle();
    expect(actor.getSnapshot().hasTag('offline')).toBe(true);
    socket.emit({ type: 'network.restored' });
    await settle();
    expect(actor.getSnapshot().hasTag('pending')).toBe(true);
    await socket.finishReconnect('open');
    expect(actor.getSnapshot().value).toBe('live');
    expect(actor.getSnapshot().context).toEqual({ attempts: 0, reason: null });
  });
});
