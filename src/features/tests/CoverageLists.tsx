import type { MachineDefinition } from '../../lib/model/types.ts';
import { untestedGuards, untestedTransitions, type Coverage } from '../../lib/testing/index.ts';
import { useCanvasSend } from '../canvas/open-machine-context.ts';

/**
 * What coverage leaves untested, as two lists: transitions no run took ("PAY: idle →
 * paying") and guard outcomes never met ("`hasCard` is false"). Clicking one selects
 * it on the diagram (a guard outcome selects the first transition it guards) and
 * flashes it there until its animation ends.
 */
export function CoverageLists({
  definition,
  coverage,
  scope,
}: {
  definition: MachineDefinition;
  coverage: Coverage;
  scope: () => HTMLElement | null;
}) {
  const canvasSend = useCanvasSend();
  const transitions = untestedTransitions(definition, coverage);
  const guards = untestedGuards(definition, coverage);
  const show = (id: string | undefined) => {
    if (!id) return;
    canvasSend({ type: 'canvas.select', id, additive: false });
    const el = scope()?.querySelector(`[data-transition-id="${CSS.escape(id)}"]`);
    if (!el) return;
    el.setAttribute('data-flash', 'true');
    el.addEventListener('animationend', () => el.removeAttribute('data-flash'), { once: true });
  };
  if (transitions.length === 0 && guards.length === 0) return <p className="tests-untested">Everything is tested.</p>;
  return (
    <div className="tests-untested-lists">
      {transitions.length > 0 && (
        <div>
          <h3>Untested transitions</h3>
          <ul aria-label="Untested transitions">
            {transitions.map((t) => (
              <li key={t.id}>
                <button type="button" className="link" data-transition={t.id} onClick={() => show(t.id)}>
                  {t.words}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {guards.length > 0 && (
        <div>
          <h3>Untested guard outcomes</h3>
          <ul aria-label="Untested guard outcomes">
            {guards.map((g) => (
              <li key={g.outcome}>
                <button
                  type="button"
                  className="link"
                  data-outcome={g.outcome}
                  disabled={g.transitions.length === 0}
                  onClick={() => show(g.transitions[0])}
                >
                  {g.words}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
