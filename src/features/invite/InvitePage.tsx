import { liveJoinLogic } from '../../app/live-data.ts';
import type { JoinLogic } from '../../app/projects.ts';
import { inspector } from '../../app/inspect.ts';
import { SignInCard } from '../session/SignInCard.tsx';
import { useCurrentUser } from '../session/session-context.ts';
import { JoinContext } from './join-context.ts';
import { JoinStatusView } from './JoinFlow.tsx';

/** /invite/:token — sign in (or up) first, then accept, then on to the room. */
export function InvitePage({ token, logic }: { token: string; logic?: JoinLogic }) {
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
  return (
    <JoinContext.Provider key={`${token}:${user.id}`} logic={logic ?? liveJoinLogic()} options={{ input: { kind: 'invite', token }, inspect: inspector() }}>
      <JoinStatusView kind="invite" />
    </JoinContext.Provider>
  );
}
