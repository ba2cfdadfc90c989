import { useEffect, useRef, type FormEvent } from 'react';
import {
  usePendingRequest,
  useSessionError,
  useSessionNotice,
  useSessionSend,
  useSessionStatus,
} from './session-context.ts';
import { MailboxLink } from './MailboxLink.tsx';

/** Sign in, create an account, or continue as a guest: one form, three intents. */
export function SignInCard() {
  const send = useSessionSend();
  const status = useSessionStatus();
  const pendingRequest = usePendingRequest();
  const error = useSessionError();
  const notice = useSessionNotice();
  const pending = status === 'pending';
  const passwordRef = useRef<HTMLInputElement>(null);

  // Disabling the form drops focus; after a failure, put it where the fix usually is.
  useEffect(() => {
    if (error) passwordRef.current?.focus();
  }, [error]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const field = (name: string): string => {
      const value = data.get(name);
      return typeof value === 'string' ? value : '';
    };
    const email = field('email').trim();
    const password = field('password');
    // Enter submits with the first button (Sign in); the submitter says which was pressed.
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const intent = submitter?.getAttribute('value') === 'signUp' ? 'session.signUp' : 'session.signIn';
    send({ type: intent, email, password });
  };

  return (
    <main className="auth-page">
      <section className="card" aria-labelledby="auth-title">
        <h1 id="auth-title">Sign in to Chartroom</h1>
        <p className="lede">Model, simulate and test statecharts together, live.</p>
        <form onSubmit={onSubmit} aria-busy={pending}>
          <fieldset disabled={pending}>
            <label htmlFor="auth-email">Email</label>
            <input id="auth-email" name="email" type="email" autoComplete="username" required autoFocus />
            <label htmlFor="auth-password">Password</label>
            <input
              id="auth-password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              ref={passwordRef}
            />
            {error && (
              <p className="message error" role="alert">
                {error}
              </p>
            )}
            {notice && (
              <p className="message notice" role="status">
                {notice}
                <MailboxLink />
              </p>
            )}
            <div className="actions">
              <button
                type="submit"
                name="intent"
                value="signIn"
                className="primary"
                data-busy={pendingRequest === 'signIn'}
              >
                Sign in
              </button>
              <button type="submit" name="intent" value="signUp" data-busy={pendingRequest === 'signUp'}>
                Create account
              </button>
            </div>
          </fieldset>
        </form>
        <div className="divider" role="separator">
          <span>or</span>
        </div>
        <button
          type="button"
          className="ghost wide"
          disabled={pending}
          data-busy={pendingRequest === 'guest'}
          onClick={() => send({ type: 'session.signInAsGuest' })}
        >
          Continue as guest
        </button>
        <p className="fineprint">Guests can view rooms they are invited to. Create an account to edit.</p>
      </section>
    </main>
  );
}
