import { Subject } from 'rxjs';
import { fromEventObservable, fromPromise } from 'xstate';
import type { SocketEvent, SocketState } from '../../src/lib/ports/realtime.ts';

/**
 * A fake socket: the test emits its facts and sees each reconnect the machine asks for.
 * With `hold`, each reconnect request stays open until the test resolves or rejects it.
 */
export function fakeSocket(options: { hold?: boolean } = {}) {
  const facts = new Subject<SocketEvent>();
  let reconnects = 0;
  let open: { resolve: (state: SocketState) => void; reject: (error: Error) => void } | null = null;
  return {
    actors: {
      socketEvents: fromEventObservable<SocketEvent, void>(() => facts),
      // Without `hold` the socket answers that it is connecting: its facts decide the rest.
      reconnect: fromPromise<SocketState, void>(() => {
        reconnects += 1;
        if (!options.hold) return Promise.resolve('connecting');
        return new Promise<SocketState>((resolve, reject) => {
          open = { resolve, reject };
        });
      }),
    },
    emit: (fact: SocketEvent) => facts.next(fact),
    reconnects: () => reconnects,
    /** `done` answers connecting, `open` answers that the socket is open already. */
    async finishReconnect(outcome: 'done' | 'open' | 'error') {
      const request = open;
      if (!request) throw new Error('no reconnect request is open');
      open = null;
      if (outcome === 'done') request.resolve('connecting');
      else if (outcome === 'open') request.resolve('open');
      else request.reject(new Error('reconnect failed'));
      await settle();
    },
  };
}

/** Lets resolved promises deliver their outcome to the actors (works under fake timers). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}
