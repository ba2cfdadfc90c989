import { useSelector } from '@xstate/react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { simulationMachine } from '../../../machines/open-machine/simulation.machine.ts';
import {
  definitionNames,
  enabledTransitions,
  optionsAtEnd,
  takenTransitions,
  readyEntries,
  type EventOption,
  type SimLogEntry,
  type SimStep,
} from '../../lib/simulation/index.ts';

/**
 * Named selector hooks over the simulation actor: one slice each, with a compare for
 * lists, so a view re-renders only when its slice changes (house style rule 11).
 */

export type SimulationActor = ActorRefFrom<typeof simulationMachine>;
type Snapshot = SnapshotFrom<typeof simulationMachine>;

const NO_PATHS: string[] = [];
const sameList = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The step on screen: the live end, or the replay position. */
export function shownStep(s: Snapshot): SimStep | null {
  const steps = s.context.trace?.steps;
  if (!steps || steps.length === 0) return null;
  return steps[Math.min(s.context.position ?? steps.length - 1, steps.length - 1)] ?? null;
}

export type SimMode = 'loading' | 'idle' | 'busy' | 'open';
export const useSimMode = (actor: SimulationActor): SimMode =>
  useSelector(actor, (s) =>
    s.hasTag('loading') ? 'loading' : s.hasTag('busy') ? 'busy' : s.hasTag('open') ? 'open' : 'idle',
  );

/** Dot paths of the active states shown (empty without a simulation): the diagram's highlight. */
export const useSimActivePaths = (actor: SimulationActor): string[] =>
  useSelector(actor, (s) => shownStep(s)?.activePaths ?? NO_PATHS, sameList);

export const useSimStep = (actor: SimulationActor): SimStep | null => useSelector(actor, shownStep);

export const useSimPosition = (actor: SimulationActor) => {
  // A followed step can run ahead of the log read here so far: show at most what is known.
  const position = useSelector(actor, (s) =>
    s.context.position === null ? null : Math.min(s.context.position, s.context.log.ready),
  );
  const last = useSelector(actor, (s) => s.context.log.ready);
  const playing = useSelector(actor, (s) => s.hasTag('playing'));
  const syncing = useSelector(actor, (s) => s.hasTag('syncing'));
  return { position, last, playing, syncing };
};

export const useSimError = (actor: SimulationActor): string | null => useSelector(actor, (s) => s.context.error);
export const useSimSimulation = (actor: SimulationActor) => useSelector(actor, (s) => s.context.simulation);
export const useSimGuards = (actor: SimulationActor) => useSelector(actor, (s) => s.context.guards);

export const useSimGuardNames = (actor: SimulationActor): string[] =>
  useSelector(
    actor,
    (s) => (s.context.setup ? definitionNames(s.context.setup.definition).guards : NO_PATHS),
    sameList,
  );

const sameOptions = (a: EventOption[], b: EventOption[]) =>
  a.length === b.length && a.every((o, i) => o.type === b[i]?.type && o.enabled === b[i]?.enabled);

/** The events offered now (at the live end), enabled under this person's guard switches. */
export const useSimOptions = (actor: SimulationActor): EventOption[] =>
  useSelector(
    actor,
    (s) => {
      const { setup, trace, log, guards } = s.context;
      return setup && trace ? optionsAtEnd(setup, trace, readyEntries(log), guards) : [];
    },
    sameOptions,
  );

export interface LogRow {
  entry: SimLogEntry;
  step: SimStep;
}

/** The log with what each entry did (ignored or not), in order. */
export const useSimLog = (actor: SimulationActor): LogRow[] =>
  useSelector(
    actor,
    (s) => {
      const steps = s.context.trace?.steps ?? [];
      return readyEntries(s.context.log).map((entry, i) => ({ entry, step: steps[i + 1] as SimStep }));
    },
    (a, b) => a.length === b.length && a.every((r, i) => r.step === b[i]?.step),
  );

/**
 * What the simulation draws on the diagram: the active states of the step shown, the
 * transitions enabled now (only at the live end of a running simulation: their labels
 * are buttons), the ones the step shown just took (`step` restarts their mark), and
 * whether this person may send.
 */
export interface DiagramSim {
  active: string[];
  enabled: string[];
  taken: string[];
  step: number | null;
  canSend: boolean;
  /** Why the last send was refused or failed (the simulation's error), shown on the canvas too. */
  error: string | null;
}

export const NO_DIAGRAM_SIM: DiagramSim = {
  active: NO_PATHS,
  enabled: NO_PATHS,
  taken: NO_PATHS,
  step: null,
  canSend: false,
  error: null,
};

export function diagramSimOf(s: Snapshot): DiagramSim {
  const { setup, trace, log, guards, simulation, position, canSend, error } = s.context;
  const step = shownStep(s);
  if (!setup || !trace || !step) return error === null ? NO_DIAGRAM_SIM : { ...NO_DIAGRAM_SIM, error };
  const entries = readyEntries(log);
  const live = position === null || position >= log.ready;
  const running = simulation?.status === 'running' && !step.done;
  const enabled =
    live && running
      ? enabledTransitions(setup.definition, step.activePaths, optionsAtEnd(setup, trace, entries, guards), guards)
      : NO_PATHS;
  const before = step.seq > 0 ? trace.steps[step.seq - 1] : undefined;
  const taken = before ? takenTransitions(setup.definition, before, step, entries[step.seq - 1]) : NO_PATHS;
  return { active: step.activePaths, enabled, taken, step: step.seq, canSend, error };
}

export const sameDiagramSim = (a: DiagramSim, b: DiagramSim): boolean =>
  a.step === b.step &&
  a.canSend === b.canSend &&
  a.error === b.error &&
  sameList(a.active, b.active) &&
  sameList(a.enabled, b.enabled) &&
  sameList(a.taken, b.taken);
