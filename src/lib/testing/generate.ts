import type { MachineDefinition } from '../model/types.ts';
import { shortestPaths, simplePaths, transitionCover, type PathOptions } from './paths.ts';
import { PathLimitError, type PathKind, type TestPath } from './types.ts';

/**
 * One generation request as the Tests panel asks it (in a Web Worker in the browser):
 * paths of one kind, or the clear message of a refusal, never a throw.
 */
export function generatePaths(
  definition: MachineDefinition,
  kind: PathKind,
  target: string | null,
  options: PathOptions = {},
): { paths: TestPath[]; error: string | null } {
  try {
    if (kind === 'simple') {
      if (!target) return { paths: [], error: 'Choose a target state for simple paths.' };
      const paths = simplePaths(definition, target, options);
      return { paths, error: paths.length === 0 ? `No path reaches ${target}.` : null };
    }
    if (kind === 'cover') return { paths: transitionCover(definition, options).paths, error: null };
    return { paths: shortestPaths(definition, options).paths, error: null };
  } catch (error) {
    if (error instanceof PathLimitError) return { paths: [], error: error.message };
    return { paths: [], error: error instanceof Error ? error.message : "Couldn't generate paths." };
  }
}
