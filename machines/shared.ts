/**
 * What every machine says the same way. A request actor that throws (an adapter bug, not
 * a refusal) is shown as `UNEXPECTED`; a placeholder actor that was never provided fails
 * loudly with `notProvided`, naming the machine and the actor the composition root
 * (src/app/) must provide; every request state ends through `request()`.
 */

export const UNEXPECTED = 'Something went wrong. Try again.';

export function notProvided(machine: string, actor: string): Error {
  return new Error(`${machine} machine: the "${actor}" actor must be provided (see src/app/)`);
}

/** An action's or guard's params: the answer a request actor gave (`params: output`). */
export const output = <T>({ event }: { event: { output: T } }): T => event.output;

/**
 * How a request ends, spread into its `invoke` after `id`, `src` and `input`: an answer that
 * says no (`refused`, the guard every machine names so) first, then any other answer
 * (`done`), and `threw` when the actor threw. Each is a transition as written in a chart:
 * `{ target: 'ready', actions: { type: 'showList', params: output } }`.
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
