/**
 * On the embedded backend every mail lands in a local mailbox (server/auth/mailbox.ts); the
 * server that serves the app names its page in the runtime config. Against hosted Supabase
 * there is none, and nothing renders.
 */
export function MailboxLink() {
  const url = typeof window === 'undefined' ? undefined : window.__CHARTROOM_CONFIG__?.mailboxUrl;
  if (!url) return null;
  return (
    <>
      {' '}
      <a href={url} target="_blank" rel="noreferrer">
        Open the local mailbox
      </a>
    </>
  );
}
