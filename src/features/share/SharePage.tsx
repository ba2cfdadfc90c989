import { liveJoinLogic } from '../../app/live-data.ts';
import type { JoinLogic } from '../../app/projects.ts';
import { inspector } from '../../app/inspect.ts';
import { JoinContext } from '../invite/join-context.ts';
import { JoinStatusView } from '../invite/JoinFlow.tsx';
import { SignInCard } from '../session/SignInCard.tsx';
import { useCurrentUser } from '../session/session-context.ts';

/** /s/:shareToken — a guest session is enough: join as a viewer, then the room, read-only. */
export function SharePage({ token, logic }: { token: string; logic?: JoinLogic }) {
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
  return (
    <JoinContext.Provider key={`${token}:${user.id}`} logic={logic ?? liveJoinLogic()} options={{ input: { kind: 'share', token }, inspect: inspector() }}>
      <JoinStatusView kind="share" />
    </JoinContext.Provider>
  );
}
