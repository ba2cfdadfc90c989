import type { GuardValues } from '../simulation/types.ts';
import type { TestStep } from './types.ts';

/**
 * Paths in words: "start in idle → PAY → paying → SUCCESS → paid". A configuration is
 * its deepest active states joined with " + " (parallel regions); a delayed step reads
 * "after 1000 ms" (or the named delay); guard outcomes read "assuming `hasCard` is true".
 */

/** The deepest active paths: those no other active path extends. */
export function leafPaths(activePaths: readonly string[]): string[] {
  return activePaths.filter((p) => !activePaths.some((q) => q.startsWith(`${p}.`)));
}

export const configurationWords = (activePaths: readonly string[]): string =>
  leafPaths(activePaths).join(' + ') || '(nothing)';

/** `xstate.after.<delay>.<state id>` → "after 1000 ms" / "after shortDelay". */
export function eventWords(step: Pick<TestStep, 'kind' | 'type'>): string {
  if (step.kind === 'time') {
    const delay = step.type?.startsWith('xstate.after.') ? step.type.slice('xstate.after.'.length).split('.')[0] : null;
    if (!delay) return 'advance time';
    return /^\d+$/.test(delay) ? `after ${delay} ms` : `after ${delay}`;
  }
  return step.type ?? '?';
}

export function assumptionWords(guards: GuardValues): string {
  const names = Object.keys(guards).sort();
  if (names.length === 0) return '';
  return `assuming ${names.map((n) => `\`${n}\` is ${guards[n] === true ? 'true' : 'false'}`).join(' and ')}`;
}

export function pathWords(start: readonly string[], steps: readonly TestStep[]): string {
  const parts = [`start in ${configurationWords(start)}`];
  for (const s of steps) {
    const assume = assumptionWords(s.guards);
    parts.push(assume ? `${eventWords(s)} (${assume})` : eventWords(s), configurationWords(s.expect));
  }
  return parts.join(' → ');
}
