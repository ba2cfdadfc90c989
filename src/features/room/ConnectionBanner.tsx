import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import type { ConnectionLogic } from '../../app/room.ts';
import { liveConnectionActor } from '../../app/live.ts';

type ConnectionActor = ActorRefFrom<ConnectionLogic>;

/** Says when realtime is down (reconnecting or offline), with a way to retry now. */
export function ConnectionBanner({ actor }: { actor?: ConnectionActor }) {
  const ref = actor ?? liveConnectionActor();
  const down = useSelector(ref, (state) => state.hasTag('down'));
  const offline = useSelector(ref, (state) => state.hasTag('offline'));
  const retrying = useSelector(ref, (state) => state.hasTag('pending'));
  const reason = useSelector(ref, (state) => state.context.reason);
  if (!down) return null;
  return (
    <div className={`connection-banner${offline ? ' offline' : ''}`} role="alert">
      <span>{reason ?? 'Lost the live connection. Reconnecting…'}</span>
      <button type="button" disabled={retrying} onClick={() => ref.send({ type: 'connection.retry' })}>
        {retrying ? 'Reconnecting…' : 'Retry now'}
      </button>
    </div>
  );
}
