import type { ReactNode } from 'react';
import { SignInCard } from '../session/SignInCard.tsx';
import { useCurrentUser } from '../session/session-context.ts';

/** /s/:shareToken — a guest session is enough: join as a viewer, then the room, read-only. */
export function SharePage({ join }: { join: ReactNode }) {
  const user = useCurrentUser();
  if (!user) {
    return (
      <>
        <p className="entry-intro" role="note">
          Someone shared a Chartroom project with you. Continue as a guest to view it, or sign in.
        </p>
        <SignInCard />
      </>
    );
  }
  // The composition root provides the join actor for the signed-in person.
  return <>{join}</>;
}
