import { createActorContext } from '@xstate/react';
import { joinMachine } from '../../../machines/account/join.machine.ts';
import type { Failure } from '../../lib/ports/room.ts';

/** One link being joined; read through the hooks below. */
export const JoinContext = createActorContext(joinMachine);

export type JoinStatus = 'joining' | 'failed' | 'joined';

export function useJoinStatus(): JoinStatus {
  return JoinContext.useSelector((s): JoinStatus =>
    s.hasTag('joined') ? 'joined' : s.hasTag('failed') ? 'failed' : 'joining',
  );
}
export function useJoinError(): Failure | null {
  return JoinContext.useSelector((s) => s.context.error);
}
export function useJoinedProject(): string | null {
  return JoinContext.useSelector((s) => s.context.projectId);
}
