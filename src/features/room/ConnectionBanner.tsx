import { useConnectionReason, useConnectionSend, useConnectionStatus } from './connection-context.ts';

/** Says when realtime is down (reconnecting or offline), with a way to retry now. */
export function ConnectionBanner() {
  const status = useConnectionStatus();
  const reason = useConnectionReason();
  const send = useConnectionSend();
  if (status !== 'reconnecting' && status !== 'retrying' && status !== 'offline') return null;
  const retrying = status === 'retrying';
  return (
    <div className={`connection-banner${status === 'offline' ? ' offline' : ''}`} role="alert">
      <span>{reason ?? 'Lost the live connection. Reconnecting…'}</span>
      <button type="button" disabled={retrying} onClick={() => send({ type: 'connection.retry' })}>
        {retrying ? 'Reconnecting…' : 'Retry now'}
      </button>
    </div>
  );
}
