import { throwError } from 'rxjs';
import {
  fromCallback,
  fromEventObservable,
  fromPromise,
  type ActorRef,
  type EventObject,
  type NonReducibleUnknown,
  type Snapshot,
} from 'xstate';

/**
 * What every machine says the same way. A request actor that throws (an adapter bug, not
 * a refusal) is shown as `UNEXPECTED`; a placeholder actor that was never provided fails
 * loudly with `notProvided`, naming the machine and the actor the composition root
 * (src/app/) must provide; every request state ends through `request()`, `requestFirst()`
 * or `requestValue()`; a list read, kept live and read again after a rejoin is `listRegion()`.
 */

export const UNEXPECTED = 'Something went wrong. Try again.';

export function notProvided(machine: string, actor: string): Error {
  return new Error(`${machine} machine: the "${actor}" actor must be provided (see src/app/)`);
}

/** A request actor nobody provided yet: it rejects with `notProvided`. */
export const requestNotProvided = <TOutput, TInput>(machine: string, actor: string) =>
  fromPromise<TOutput, TInput>(() => Promise.reject(notProvided(machine, actor)));

/** A stream of facts (a channel) nobody provided yet: it errors with `notProvided`. */
export const streamNotProvided = <TEvent extends EventObject, TInput>(machine: string, actor: string) =>
  fromEventObservable<TEvent, TInput>(() => throwError(() => notProvided(machine, actor)));

/**
 * A two-way channel (a callback actor: facts out, commands in) nobody provided yet: it
 * throws `notProvided` as it starts.
 */
export const callbackNotProvided = <TCommand extends EventObject, TInput = NonReducibleUnknown>(
  machine: string,
  actor: string,
) =>
  fromCallback<TCommand, TInput>(() => {
    throw notProvided(machine, actor);
  });

/** The open machine as a child sees it: only the events it may send it. */
export type Host<TEvent extends EventObject> = ActorRef<Snapshot<unknown>, TEvent>;

/** An action's or guard's params: the answer a request actor gave (`params: output`). */
export const output = <T>({ event }: { event: { output: T } }): T => event.output;

/**
 * An accepted answer's value (`params: value`), for a `done` that follows `refused`: only an
 * answer that said yes gets there.
 */
export const value = <T>({ event }: { event: { output: { ok: true; value: T } | { ok: false } } }): T => {
  if (!event.output.ok) throw new Error('request(): a refused answer reached `done`');
  return event.output.value;
};

/**
 * How a request ends, spread into its `invoke` after `id`, `src` and `input`: an answer that
 * says no (`refused`, the guard every machine names so) first, then any other answer
 * (`done`), and `threw` when the actor threw. Each is a transition as written in a chart:
 * `{ target: 'ready', actions: { type: 'showList', params: output } }`. A request whose
 * success is told by a later fact has `done: {}`. Each helper here is one expression, so
 * the TypeScript importer reads it (src/lib/convert/ts-reader.ts).
 */
export function request<const TRefused, const TDone, const TThrew>(ends: {
  refused: TRefused;
  done: TDone;
  threw: TThrew;
}) {
  return {
    onDone: [{ guard: { type: 'refused', params: output } as const, ...ends.refused }, ends.done],
    onError: ends.threw,
  };
}

/**
 * `request()` with one answer tried before the refusal (`first`, with its own guard): a
 * refusal that ends more than the request (the room's access gone, the session expired).
 */
export function requestFirst<const TFirst, const TRefused, const TDone, const TThrew>(ends: {
  first: TFirst;
  refused: TRefused;
  done: TDone;
  threw: TThrew;
}) {
  return {
    onDone: [ends.first, { guard: { type: 'refused', params: output } as const, ...ends.refused }, ends.done],
    onError: ends.threw,
  };
}

/**
 * A request with no `refused` branch: its actor answers the value itself (no `Result` to
 * refuse), or every answer ends alike. `done` is one transition, or several tried in order
 * (the answer's own guards), and `threw` as above.
 */
export function requestValue<const TDone, const TThrew>(ends: { done: TDone; threw: TThrew }) {
  return { onDone: ends.done, onError: ends.threw };
}

/** A request's input that is the machine it is about (`input: byMachine`). */
export const byMachine = ({ context }: { context: { machineId: string } }): { machineId: string } => ({
  machineId: context.machineId,
});

/**
 * The list region of a machine's panel: `loading` (tag `loading`) runs `read`, the invoke
 * that reads the machine's rows (`id`, `src`, `input: byMachine`, and how it ends:
 * `...request()` or `...requestValue()`); `live` holds the rows, and `again` names what
 * reads them again (the channel's (re)join, `x.subscribed`: it may have missed rows; any
 * other fact that leaves the rows stale). `states` adds the others (`failed`, with its
 * retry); `{}` when there are none. One expression, so the TypeScript importer reads it.
 */
export function listRegion<const TRead, const TAgain, const TStates>(list: {
  read: TRead;
  again: TAgain;
  states: TStates;
}) {
  return {
    initial: 'loading' as const,
    states: { loading: { tags: 'loading' as const, invoke: list.read }, live: { on: list.again }, ...list.states },
  };
}
