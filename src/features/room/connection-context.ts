import { createActorContext } from '@xstate/react';
import { useCallback } from 'react';
import { connectionMachine, type ConnectionIntent } from '../../../machines/account/connection.machine.ts';

/**
 * The app's one connection actor (the realtime socket's life), provided by the
 * composition root; the banner reads it through these hooks. It is the one source of
 * truth for "is the live connection up" (see machines/CONTEXT.md, "Reconnecting").
 */
export const ConnectionContext = createActorContext(connectionMachine);

export type ConnectionStatus = 'live' | 'connecting' | 'reconnecting' | 'retrying' | 'offline';

export function useConnectionStatus(): ConnectionStatus {
  return ConnectionContext.useSelector((state): ConnectionStatus => {
    if (state.hasTag('offline')) return 'offline';
    if (state.hasTag('down')) return state.hasTag('pending') ? 'retrying' : 'reconnecting';
    if (state.hasTag('pending')) return 'connecting';
    return 'live';
  });
}

/** Why the connection is down, in words for people. */
export function useConnectionReason(): string | null {
  return ConnectionContext.useSelector((state) => state.context.reason);
}

export function useConnectionSend(): (intent: ConnectionIntent) => void {
  const actor = ConnectionContext.useActorRef();
  return useCallback((intent: ConnectionIntent) => actor.send(intent), [actor]);
}
