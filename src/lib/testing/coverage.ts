import type { JsonObject, MachineDefinition, TransitionId } from '../model/types.ts';
import { definitionNames } from '../simulation/build.ts';
import { Simulator } from '../simulation/simulator.ts';
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

function recording(guards: GuardValues, asked: Set<string>): GuardValues {
  return new Proxy(guards, {
    get: (target, name) => {
      if (typeof name !== 'string') return undefined;
      const value = Object.hasOwn(target, name) && target[name] === true;
      asked.add(`${name}=${value}`);
      return value;
    },
  });
}

export function computeCoverage(def: MachineDefinition, runs: readonly CoverageRun[]): Coverage {
  const marked = markTransitions(def);
  const states = new Set<string>();
  const transitions = new Set<TransitionId>();
  const guards = new Set<string>();
  const note = (paths: readonly string[], actions: readonly { type: string; params?: unknown }[]) => {
    for (const p of paths) states.add(p);
    for (const a of actions) if (a.type === TAKEN && typeof a.params === 'string') transitions.add(a.params);
  };
  for (const run of runs) {
    let sim: Simulator | null = null;
    try {
      sim = new Simulator({ definition: marked, context: run.context, guards: {} });
      const first = sim.start();
      note(first.activePaths, first.actions);
      for (const [i, e] of run.entries.entries()) {
        const step = sim.apply({ ...e, seq: i + 1, guards: recording(e.guards, guards) });
        note(step.activePaths, step.actions);
      }
    } catch {
      // A run that cannot replay on this version covers what it reached before.
    } finally {
      sim?.stop();
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
