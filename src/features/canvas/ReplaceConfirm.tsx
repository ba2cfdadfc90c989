/** Loading an example over this machine replaces it for everyone: the question asked first. */
export function ReplaceConfirm({
  example,
  onReplace,
  onKeep,
}: {
  example: string;
  onReplace: () => void;
  onKeep: () => void;
}) {
  return (
    <div className="canvas-confirm" role="alertdialog" aria-labelledby="canvas-confirm-text">
      <span id="canvas-confirm-text">
        Replace this whole machine with the example “{example}”? Everyone here sees the change; Undo brings it back.
      </span>
      <button type="button" className="danger" onClick={onReplace}>
        Replace machine
      </button>
      <button type="button" onClick={onKeep}>
        Keep this machine
      </button>
    </div>
  );
}
