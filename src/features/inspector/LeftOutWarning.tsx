import { leftOutCounts, type LeftOut } from '../../lib/convert/issues.ts';

/**
 * The import dialog's warning when a read machine is not the whole machine: how many
 * states and transitions were left out and why, as an alert, never a faint note.
 */
export function LeftOutWarning({ leftOut }: { leftOut: LeftOut }) {
  return (
    <div className="message error import-left-out" role="alert" aria-label="Left out of this machine">
      <strong>Not the whole machine: {leftOutCounts(leftOut)} left out.</strong>
      <ul>
        {leftOut.reasons.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
    </div>
  );
}
