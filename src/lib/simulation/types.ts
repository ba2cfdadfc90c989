import type { Json, JsonObject, MachineDefinition } from '../model/types.ts';

/** Guard outcomes by guard name: the switches in the simulation panel. Unset means false. */
export type GuardValues = Record<string, boolean>;

/**
 * One entry of a simulation's log, as every client receives it: `seq` is the server's
 * order (1, 2, 3 ... per simulation). `kind: 'event'` sends `{ type, ...payload }` to
 * the machine; `kind: 'time'` advances the simulated clock to the next timer. `guards`
 * are the switch values the sender saw, used for every guard evaluated in that step.
 */
export interface SimLogEntry {
  seq: number;
  kind: 'event' | 'time';
  type: string | null;
  payload: JsonObject;
  guards: GuardValues;
  sender: string | null;
}

/** What a simulation starts from: a pinned definition, its context and guard switches. */
export interface SimSetup {
  definition: MachineDefinition;
  context: JsonObject | null;
  guards: GuardValues;
}

/** An action the machine would have run, by name: listed, never executed. */
export interface ActionCall {
  type: string;
  params?: Json;
}

/** Why a log entry did nothing; `machine_error`: the machine stopped, its eventless transitions looping. */
export type IgnoredReason = 'not_enabled' | 'reserved_type' | 'no_timer' | 'machine_done' | 'machine_error';

/** The visible state of a simulation at one position. */
export interface SimView {
  /** Dot paths of every active state, parents before children (`checkout`, `checkout.paying`). */
  activePaths: string[];
  context: Json;
  /** Ids of the invoked actors alive now (their done/error events can be sent). */
  children: string[];
  /** Simulated time in ms, and how many timers wait for "advance time". */
  now: number;
  timers: number;
  /** The machine reached a top-level final state. */
  done: boolean;
}

/** What one log entry did. */
export interface SimStep extends SimView {
  seq: number;
  ignored: IgnoredReason | null;
  actions: ActionCall[];
}
