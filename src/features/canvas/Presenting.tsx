import { usePopover } from './use-popover.ts';
import { usePresenceSend, usePresenterOffer } from './open-machine-context.ts';

/**
 * This person's observe controls, in the machine bar: whether others may follow their
 * view, and Spotlight (ask everyone on the machine to follow them; each may decline).
 */
export function PresentMenu() {
  const offer = usePresenterOffer();
  const send = usePresenceSend();
  const { open, setOpen, ref } = usePopover();
  return (
    <div className="machine-present" ref={ref}>
      <button
        type="button"
        className={offer.spotlight ? 'machine-present-toggle lit' : 'machine-present-toggle'}
        aria-expanded={open}
        aria-controls="machine-present-panel"
        onClick={() => setOpen((o) => !o)}
      >
        {offer.spotlight ? 'Spotlight on' : 'Present'}
      </button>
      {open && (
        <section id="machine-present-panel" className="bar-popover machine-present-panel" aria-label="Presenting">
          <label className="machine-present-check">
            <input
              type="checkbox"
              checked={offer.followable}
              onChange={(e) => send({ type: 'presence.allowFollow', followable: e.currentTarget.checked })}
            />
            Others can follow my view
          </label>
          <p className="hint">When off, nobody can follow you, and whoever follows you now stops.</p>
          <button
            type="button"
            className={offer.spotlight ? undefined : 'primary'}
            onClick={() => send({ type: 'presence.spotlight', on: !offer.spotlight })}
          >
            {offer.spotlight ? 'Stop spotlight' : 'Spotlight me'}
          </button>
          <p className="hint">Spotlight asks everyone on this machine to follow your view; each person may decline.</p>
        </section>
      )}
    </div>
  );
}

/** A presenter's request to follow them, answered here: follow, or not now. */
export function SpotlightAsk({ name, color }: { name: string; color: string }) {
  const send = usePresenceSend();
  return (
    <section className="machine-spotlight-ask" aria-label="Spotlight" style={{ borderColor: color }}>
      <span>
        <strong>{name}</strong> asks everyone to follow their view.
      </span>
      <button type="button" className="primary" onClick={() => send({ type: 'presence.acceptSpotlight' })}>
        Follow
      </button>
      <button type="button" onClick={() => send({ type: 'presence.declineSpotlight' })}>
        Not now
      </button>
    </section>
  );
}
