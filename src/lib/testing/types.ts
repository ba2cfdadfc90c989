import type { JsonObject, TransitionId } from '../model/types.ts';
import type { GuardValues } from '../simulation/types.ts';

/**
 * One step of a test path or saved test: what is sent and what must hold after it.
 * `kind: 'time'` advances the simulated clock to the next timer (as the simulation's
 * log does); `type` then names the delayed event the path generator took, for words.
 */
export interface TestStep {
  kind: 'event' | 'time';
  type: string | null;
  payload: JsonObject;
  /** Guard outcomes assumed for this step (only the guards XState asked about). */
  guards: GuardValues;
  /** Dot paths of every active state after the step, parents first. */
  expect: string[];
  /** Optional: a subset of the context that must hold after the step. */
  expectContext?: JsonObject;
}

/** How a path was generated. */
export type PathKind = 'shortest' | 'simple' | 'cover';

/** A generated path through a definition, in data and in words. */
export interface TestPath {
  id: string;
  kind: PathKind;
  /** The dot path of the state the path was generated for (null for transition cover). */
  target: string | null;
  /** The active states at the start. */
  start: string[];
  steps: TestStep[];
  /** The definition's transitions each step took (ids), for coverage and playing. */
  taken: TransitionId[][];
  words: string;
}

/** What a saved test holds: the start expectation and the steps. */
export interface TestScript {
  start: string[];
  steps: TestStep[];
}

/** A run of a test against a definition: pass, or the first step that broke. */
export type TestOutcome =
  | { status: 'pass'; steps: number }
  | {
      status: 'fail';
      /** 0 is the start, i the state after step i. */
      step: number;
      message: string;
      /** A state the expectation names no longer exists in the machine. */
      missingState: boolean;
    };

/** Generation refused: the graph or the number of paths is over a limit. */
export class PathLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathLimitError';
  }
}
