import { Subject } from 'rxjs';
import { fromEventObservable, fromPromise } from 'xstate';
import type { SocketEvent } from '../../src/lib/ports/realtime.ts';

/**
 * A fake socket: the test emits its facts and sees each reconnect the machine asks for.
 * With `hold`, each reconnect request stays open until the test resolves or rejects it.
 */
export function fakeSocket(options: { hold?: boolean } = {}) {
  const facts = new Subject<SocketEvent>();
  let reconnects = 0;
  let open: { resolve: () => void; reject: (error: Error) => void } | null = null;
  return {
    actors: {
      socketEvents: fromEventObservable<SocketEvent, void>(() => facts),
      reconnect: fromPromise<void, void>(() => {
        reconnects += 1;
        if (!options.hold) return Promise.resolve();
        return new Promise<void>((resolve, reject) => {
          open = { resolve, reject };
        });
      }),
    },
    emit: (fact: SocketEvent) => facts.next(fact),
    reconnects: () => reconnects,
    async finishReconnect(outcome: 'done' | 'error') {
      const request = open;
      if (!request) throw new Error('no reconnect request is open');
      open = null;
      if (outcome === 'done') request.resolve();
      else request.reject(new Error('reconnect failed'));
      await settle();
    },
  };
}

/** Lets resolved promises deliver their outcome to the actors (works under fake timers). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}
