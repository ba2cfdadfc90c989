import { useEffect } from 'react';
import { navigate } from '../navigation/router.ts';
import { useSessionSend } from '../session/session-context.ts';
import { JoinContext, useJoinError, useJoinStatus, useJoinedProject } from './join-context.ts';

/** What to do next for each refusal, beyond the server's sentence. */
type NextStep = 'retry' | 'home' | 'signOut';
const NEXT_STEP: Record<string, NextStep> = {
  invite_not_found: 'home',
  invalid_request: 'home',
  invite_expired: 'home',
  invite_revoked: 'home',
  invite_used_up: 'home',
  invalid_link: 'home',
  guest_not_allowed: 'signOut',
  not_signed_in: 'signOut',
};

const TITLES: Record<string, string> = {
  invite_not_found: 'This invite link doesn’t work',
  invalid_request: 'This invite link doesn’t work',
  invite_expired: 'This invite has expired',
  invite_revoked: 'This invite was revoked',
  invite_used_up: 'This invite has been used up',
  invalid_link: 'This share link doesn’t work',
  guest_not_allowed: 'Create an account to accept',
};

/** Runs the join machine's outcome: a spinner, a specific refusal, or on to the room. */
export function JoinStatusView({ kind }: { kind: 'invite' | 'share' }) {
  const status = useJoinStatus();
  const error = useJoinError();
  const projectId = useJoinedProject();
  const actor = JoinContext.useActorRef();
  const sendSession = useSessionSend();

  useEffect(() => {
    // Replace, so Back from the room does not land on a link that would join again.
    if (status === 'joined' && projectId) navigate(`/p/${projectId}`, { replace: true });
  }, [status, projectId]);

  if (status !== 'failed' || !error) {
    return (
      <main className="center" role="status" aria-live="polite">
        <span className="spinner" aria-hidden="true" />{' '}
        {kind === 'invite' ? 'Accepting the invite…' : 'Opening the shared project…'}
      </main>
    );
  }
  const next = NEXT_STEP[error.code] ?? 'retry';
  return (
    <main className="center">
      <section className="card" aria-labelledby="join-failed-title">
        <h1 id="join-failed-title">
          {TITLES[error.code] ?? (kind === 'invite' ? 'Couldn’t accept the invite' : 'Couldn’t open the project')}
        </h1>
        <p className="message error" role="alert">
          {error.message}
        </p>
        <div className="actions">
          {next === 'retry' && (
            <button type="button" className="primary" onClick={() => actor.send({ type: 'join.retry' })}>
              Try again
            </button>
          )}
          {next === 'signOut' && (
            <button type="button" className="primary" onClick={() => sendSession({ type: 'session.signOut' })}>
              Sign out
            </button>
          )}
          <a className="button-link" href="/">
            Go to your projects
          </a>
        </div>
      </section>
    </main>
  );
}
