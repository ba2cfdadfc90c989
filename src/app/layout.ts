import { fromCallback } from 'xstate';
import { layoutMachine, type LayoutCommand, type LayoutFact } from '../../machines/open-machine/layout.machine.ts';
import type { LayoutPort } from '../lib/ports/layout.ts';

/** A layout port with the resource behind it (a Web Worker in the browser), and how to free it. */
export interface LayoutEngine {
  port: LayoutPort;
  close: () => void;
}

/**
 * The layout machine's engine: made when the actor starts, closed by its teardown, so
 * the actor tree owns the worker and React never holds one. `start` makes the engine
 * (the browser passes `workerLayoutEngine`; tests and the bench pass elkjs in-process).
 */
export function layoutLogic(start: () => LayoutEngine) {
  return layoutMachine.provide({
    actors: {
      engine: fromCallback<LayoutCommand>(({ sendBack, receive }) => {
        const engine = start();
        let open = true;
        receive(({ request }) => {
          void engine.port(request).then((result) => {
            if (open) sendBack({ type: 'layout.done', definition: request.definition, result } satisfies LayoutFact);
          });
        });
        sendBack({ type: 'layout.engineReady' } satisfies LayoutFact);
        return () => {
          open = false;
          engine.close();
        };
      }),
    },
  });
}
export type LayoutLogic = ReturnType<typeof layoutLogic>;
