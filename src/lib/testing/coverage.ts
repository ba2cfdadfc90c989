import type { JsonObject, MachineDefinition, TransitionId } from '../model/types.ts';
import { createActor, type AnyActor, type AnyMachineSnapshot, type StateValue } from 'xstate';
import { buildSimMachine, definitionNames, type SimHooks } from '../simulation/build.ts';
import { StepClock } from '../simulation/clock.ts';
import { activePathsOf, isSendableType } from '../simulation/simulator.ts';
import type { GuardValues, SimLogEntry } from '../simulation/types.ts';
import { markTransitions, TAKEN } from './graph.ts';
import { statePaths } from './paths.ts';

/**
 * Coverage of a definition by recorded runs (saved tests and simulations): which states
 * were active, which transitions were taken and which guard outcomes were met. Each run
 * is replayed by the simulation's interpreter on a copy of the definition whose
 * transitions name themselves (graph.ts), and whose guard switches note being asked.
 * Guard outcomes are counted per guard name: `hasCard` true and `hasCard` false.
 */

export interface CoverageRun {
  context: JsonObject | null;
  entries: readonly SimLogEntry[];
}

export interface Coverage {
  states: { all: string[]; covered: Set<string> };
  transitions: { all: TransitionId[]; covered: Set<TransitionId> };
  /** Outcomes as `name=true` / `name=false`. */
  guards: { all: string[]; covered: Set<string> };
}

const percent = (covered: number, all: number) => (all === 0 ? 100 : Math.round((covered / all) * 1000) / 10);

export function coverageFigures(c: Coverage) {
  return {
    states: percent(c.states.covered.size, c.states.all.length),
    transitions: percent(c.transitions.covered.size, c.transitions.all.length),
    guards: percent(c.guards.covered.size, c.guards.all.length),
  };
}

/** Guard values that note each outcome asked (`name=true` / `name=false`) into `asked`. */
export function recording(guards: GuardValues, asked: Set<string>): GuardValues {
  return new Proxy(guards, {
    get: (target, name) => {
      if (typeof name !== 'string') return undefined;
      const value = Object.hasOwn(target, name) && target[name] === true;
      asked.add(`${name}=${value}`);
      return value;
    },
  });
}

/**
 * One machine for every run (building a 200-state machine costs more than replaying a
 * thousand events on it): the simulation's machine (build.ts) with the marked
 * transitions, a fresh actor on a StepClock per run, entries applied as Simulator does.
 */
export function computeCoverage(def: MachineDefinition, runs: readonly CoverageRun[]): Coverage {
  const states = new Set<string>();
  const transitions = new Set<TransitionId>();
  const guards = new Set<string>();
  const hooks: SimHooks = { guards: {}, actions: [] };
  // No runs: nothing to replay, and no machine to build (closed panels recompute this on every edit
  // of a 1,000-state chart). A definition XState refuses (a compound whose initial state has not
  // arrived yet, mid-batch at a peer) replays no run: it covers nothing, as a run that fails does.
  let machine: ReturnType<typeof buildSimMachine> | null = null;
  if (runs.length > 0) {
    try {
      machine = buildSimMachine(markTransitions(def), def.context ?? {}, hooks);
    } catch {
      machine = null;
    }
  }
  const note = () => {
    for (const a of hooks.actions) if (a.type === TAKEN && typeof a.params === 'string') transitions.add(a.params);
    hooks.actions = [];
  };
  for (const run of machine ? runs : []) {
    const clock = new StepClock();
    hooks.guards = {};
    hooks.actions = [];
    let actor: AnyActor | null = null;
    try {
      // Context never decides a state here (guards are switches, actions are names), so one machine serves all runs.
      actor = createActor(machine as NonNullable<typeof machine>, { clock });
      // An actor that errs (an eventless cycle past MAX_MICROSTEPS) stops; the run covers what it reached.
      actor.subscribe({ error: () => undefined });
      actor.start();
      note();
      let snap = actor.getSnapshot() as AnyMachineSnapshot;
      for (const p of activePathsOf(snap.value as StateValue)) states.add(p);
      for (const e of run.entries) {
        if (snap.status !== 'active') break;
        hooks.guards = recording(e.guards, guards);
        const type = e.type ?? '';
        if (e.kind === 'time') clock.fireNext();
        else if (isSendableType(type) && (!type.startsWith('xstate.error.') || snap.can({ type })))
          actor.send({ ...e.payload, type });
        note();
        const next = actor.getSnapshot() as AnyMachineSnapshot;
        if (next !== snap) for (const p of activePathsOf(next.value as StateValue)) states.add(p);
        snap = next;
      }
    } catch {
      // A run that cannot replay on this version covers what it reached before.
    } finally {
      actor?.stop();
    }
  }
  const known = new Set(statePaths(def));
  const names = definitionNames(def).guards;
  return {
    states: { all: [...known], covered: new Set([...states].filter((s) => known.has(s))) },
    transitions: { all: Object.keys(def.transitions), covered: transitions },
    guards: {
      all: names.flatMap((n) => [`${n}=true`, `${n}=false`]),
      covered: new Set([...guards].filter((g) => names.includes(g.slice(0, g.lastIndexOf('='))))),
    },
  };
}
