import type { ReactNode } from 'react';
import { SignInCard } from '../session/SignInCard.tsx';
import { useCurrentUser } from '../session/session-context.ts';

/** /invite/:token — sign in (or up) first, then accept, then on to the room. */
export function InvitePage({ join }: { join: ReactNode }) {
  const user = useCurrentUser();
  if (!user) {
    return (
      <>
        <p className="entry-intro" role="note">
          You’ve been invited to a project on Chartroom. Sign in or create an account to accept the invite.
        </p>
        <SignInCard />
      </>
    );
  }
  // The composition root provides the join actor for the signed-in person.
  return <>{join}</>;
}
