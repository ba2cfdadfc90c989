import { spanFor } from '../model/check.ts';
import { at } from '../model/json-text.ts';
import { readXState, type ImportOptions } from '../model/import.ts';
import type { ModuleResolver } from './ts-imports.ts';
import type { Issue, JsonObject, MachineDefinition } from '../model/types.ts';
import { validateDefinition } from '../model/validate.ts';

/**
 * What an import had to leave out of the machine: counts, and why in words
 * ("12 state keys come from "States", defined in another file (./states)").
 */
export interface LeftOut {
  states: number;
  transitions: number;
  /** Parts whose size cannot be known without running the code (a call to an imported helper). */
  unknown: number;
  reasons: string[];
}

/** What every importer returns: the definition (null when it cannot be built) and every finding. */
export interface ConvertResult {
  definition: MachineDefinition | null;
  /** The XState JSON config read from the source, when one was found. */
  config: JsonObject | null;
  issues: Issue[];
  /** Set when parts of the machine could not be imported: the chart is not the whole machine. */
  leftOut?: LeftOut;
}

/** What an importer may be told besides the model's options: the file's name picks its syntax. */
export type ConvertOptions = ImportOptions & {
  fileName?: string;
  /**
   * TypeScript only: gives the source of a module the file imports, so a helper or constant
   * imported from it (`...request({...})` from '../shared.ts') is read there; without it
   * (the browser) such a part is left out and counted. See ModuleResolver in ts-imports.ts.
   */
  resolveModule?: ModuleResolver;
};

/** "4 states, 2 transitions, 1 part of unknown size": what an import left out, counted. */
export function leftOutCounts(left: LeftOut): string {
  const plural = (n: number, what: string): string | null => (n > 0 ? `${n} ${what}${n === 1 ? '' : 's'}` : null);
  return [plural(left.states, 'state'), plural(left.transitions, 'transition')]
    .concat(left.unknown > 0 ? `${plural(left.unknown, 'part')} of unknown size` : null)
    .filter((p) => p !== null)
    .join(', ');
}

/** "Left out of this machine: 12 states, 21 transitions. Why." for people, or null when nothing was. */
export function describeLeftOut(left: LeftOut | undefined): string | null {
  if (!left) return null;
  return `Left out of this machine: ${leftOutCounts(left)}. ${left.reasons.join('; ')}.`;
}

/** Source spans by config path, so import issues point at the text they came from. */
export type Spans = Map<string, { start: number; end: number }>;

/** Largest source an importer reads, in characters (a pasted file, not a data dump). */
export const MAX_SOURCE = 2_000_000;

export function issueAt(
  text: string,
  severity: Issue['severity'],
  path: string,
  message: string,
  start: number,
  end = start,
): Issue {
  return { severity, path, message, at: at(text, Math.max(0, start), Math.max(0, end)) };
}

/** A config read from some source: import it, validate it, and place every issue in the text. */
export function finish(
  text: string,
  config: JsonObject,
  spans: Spans,
  issues: Issue[],
  options: ImportOptions,
): ConvertResult {
  const imported = readXState(config, options);
  const all = [...issues, ...imported.issues];
  if (imported.definition !== null) all.push(...validateDefinition(imported.definition));
  for (const issue of all) {
    if (issue.at) continue;
    const span = spanFor(spans, issue.path);
    if (span) issue.at = at(text, span.start, span.end);
  }
  return { definition: imported.definition, config, issues: all };
}

/** `line 3, column 7: message` for people. */
export function describeIssue(issue: Issue): string {
  const where = issue.at ? `line ${issue.at.line}, column ${issue.at.column}: ` : '';
  const path = issue.path === '' ? '' : `${issue.path}: `;
  return `${where}${path}${issue.message}`;
}
