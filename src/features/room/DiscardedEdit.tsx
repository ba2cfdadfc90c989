/**
 * Said when a change someone was typing is dropped because they may no longer edit (an
 * owner made them a viewer while a rename was open): the field closes, and this says why.
 */
export function DiscardedEdit({ what, onDismiss }: { what: string; onDismiss: () => void }) {
  return (
    <p className="message notice with-action discarded-edit" role="alert">
      <span>Your role changed to viewer, so the {what} you were typing was not saved.</span>
      <button type="button" onClick={onDismiss}>
        OK
      </button>
    </p>
  );
}
