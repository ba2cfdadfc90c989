/**
 * What every machine says the same way. A request actor that throws (an adapter bug, not
 * a refusal) is shown as `UNEXPECTED`; a placeholder actor that was never provided fails
 * loudly with `notProvided`, naming the machine and the actor the composition root
 * (src/app/) must provide; every request state ends through `request()`, `requestFirst()`
 * or `requestValue()`.
 */

export const UNEXPECTED = 'Something went wrong. Try again.';

export function notProvided(machine: string, actor: string): Error {
  return new Error(`${machine} machine: the "${actor}" actor must be provided (see src/app/)`);
}

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
