import { readyEntries } from '../../lib/simulation/index.ts';
import { pathWords, scriptFromSimulation, type TestScript } from '../../lib/testing/index.ts';
import type { JsonObject } from '../../lib/model/types.ts';
import { useChildSelector } from '../actor-hooks.ts';
import { useSimulationRef } from '../canvas/open-machine-context.ts';

/** What "Save simulation as test" asks the tests machine to save. */
export interface SimulationTest {
  name: string;
  script: TestScript;
  context: JsonObject | null;
  simulationId: string;
  machineVersion: number;
}

/** A saved test's name: "Simulation: start in off → TOGGLE → on", cut to the column's 200 characters. */
export function simulationTestName(script: TestScript): string {
  const words = `Simulation: ${pathWords(script.start, script.steps)}`;
  return words.length <= 200 ? words : `${words.slice(0, 199)}…`;
}

/**
 * "Save simulation as test": the machine's shared simulation, as far as its log is known
 * without gaps, becomes a saved test. Each event that did something is a step, and the
 * states the run reached after it are the step's expectation (src/lib/testing/run.ts);
 * the test keeps the simulation's initial context and the version it ran.
 */
export function SaveSimulation({ busy, onSave }: { busy: boolean; onSave: (test: SimulationTest) => void }) {
  const ref = useSimulationRef();
  const simulation = useChildSelector(ref, (s) => s.context.simulation, null);
  const setup = useChildSelector(ref, (s) => s.context.setup, null);
  const log = useChildSelector(ref, (s) => s.context.log, null);
  if (!ref) return null;
  const steps = log?.ready ?? 0;
  const save = () => {
    if (!simulation || !setup || !log) return;
    const script = scriptFromSimulation(setup, readyEntries(log));
    onSave({
      name: simulationTestName(script),
      script,
      context: simulation.context,
      simulationId: simulation.id,
      machineVersion: simulation.machineVersion,
    });
  };
  return (
    <button
      type="button"
      disabled={busy || !simulation || steps === 0}
      title={simulation ? `The shared simulation, ${steps} step${steps === 1 ? '' : 's'}` : 'No simulation yet'}
      onClick={save}
    >
      Save simulation as test
    </button>
  );
}
