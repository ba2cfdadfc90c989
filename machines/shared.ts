/**
 * What every machine says the same way. A request actor that throws (an adapter bug, not
 * a refusal) is shown as `UNEXPECTED`; a placeholder actor that was never provided fails
 * loudly with `notProvided`, naming the machine and the actor the composition root
 * (src/app/) must provide.
 */

export const UNEXPECTED = 'Something went wrong. Try again.';

export function notProvided(machine: string, actor: string): Error {
  return new Error(`${machine} machine: the "${actor}" actor must be provided (see src/app/)`);
}
