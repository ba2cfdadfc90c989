import { useMembers } from '../room/room-context.ts';
import { useFollow, useInspectionSend } from './inspection-context.ts';

/**
 * Follow mode on the inspection page: present what you look at, or follow a member who
 * presents (your session, actor and replay position then follow theirs; picking any of
 * them yourself stops following). Shown once the follow channel is joined: guests and
 * outsiders are refused by the database, so they never see it.
 */
export function FollowPanel() {
  const follow = useFollow();
  const send = useInspectionSend();
  const members = useMembers();
  if (!follow.live) return null;
  const nameOf = (userId: string) => members.find((m) => m.userId === userId)?.name ?? 'A member';
  return (
    <section className="inspect-section" aria-labelledby="inspect-follow-title">
      <h2 id="inspect-follow-title">Follow</h2>
      {follow.presenting ? (
        <p>
          <span role="status">You are presenting.</span>{' '}
          <button type="button" onClick={() => send({ type: 'inspection.stopPresenting' })}>
            Stop presenting
          </button>
        </p>
      ) : (
        <button type="button" onClick={() => send({ type: 'inspection.present' })}>
          Present what I look at
        </button>
      )}
      {follow.followed && (
        <p>
          <span role="status">Following {nameOf(follow.followed)}.</span>{' '}
          <button type="button" onClick={() => send({ type: 'inspection.unfollow' })}>
            Stop following
          </button>
        </p>
      )}
      <ul className="inspect-list" aria-label="Presenters">
        {follow.presenters.map((p) => (
          <li key={p.userId}>
            {nameOf(p.userId)}{' '}
            <button
              type="button"
              className="link"
              aria-pressed={follow.followed === p.userId}
              disabled={follow.followed === p.userId}
              onClick={() => send({ type: 'inspection.follow', userId: p.userId })}
            >
              Follow {nameOf(p.userId)}
            </button>
          </li>
        ))}
        {follow.presenters.length === 0 && <li className="muted">Nobody presents now.</li>}
      </ul>
    </section>
  );
}
