import { counterIds, importXState, type JsonObject, type MachineDefinition } from '../../../src/lib/model/index.ts';
import type { GuardValues, SimLogEntry, SimSetup } from '../../../src/lib/simulation/index.ts';

/** A definition from an XState JSON config, with deterministic ids. */
export function def(config: JsonObject): MachineDefinition {
  return importXState(config, { ids: counterIds('sim') });
}

export function setupOf(config: JsonObject, guards: GuardValues = {}, context: JsonObject | null = null): SimSetup {
  return { definition: def(config), context, guards };
}

/** A log from a short script: 'GO', { type, payload, guards }, or 'time' for advance time. */
export type Script = (string | { type: string; payload?: JsonObject; guards?: GuardValues })[];

export function logOf(script: Script, guards: GuardValues = {}): SimLogEntry[] {
  return script.map((s, i) => {
    const seq = i + 1;
    if (s === 'time') return { seq, kind: 'time', type: null, payload: {}, guards, sender: null };
    if (typeof s === 'string') return { seq, kind: 'event', type: s, payload: {}, guards, sender: null };
    return { seq, kind: 'event', type: s.type, payload: s.payload ?? {}, guards: s.guards ?? guards, sender: null };
  });
}

/** The checkout machine: nested, parallel, history, after, always, invoke, final. */
export const checkout: JsonObject = {
  id: 'checkout',
  initial: 'browsing',
  context: { items: 0, note: 'plain JSON' },
  states: {
    browsing: {
      entry: 'trackPage',
      on: { ADD: { actions: 'addItem' }, CHECKOUT: { target: 'paying', guard: 'hasItems' } },
    },
    paying: {
      initial: 'card',
      invoke: { src: 'paymentGateway', id: 'gateway', onDone: 'receipt', onError: '.failed' },
      after: { 5000: '#checkout.timedOut' },
      on: { BACK: 'browsing' },
      states: { card: { on: { SWITCH: 'wallet' } }, wallet: {}, failed: {} },
    },
    receipt: { type: 'final' },
    timedOut: { always: { target: 'browsing', actions: 'notifyTimeout' } },
  },
};
