import { readXState, type ImportOptions } from './import.ts';
import { at, parseJsonText } from './json-text.ts';
import type { Issue, JsonObject, MachineDefinition } from './types.ts';
import { validateDefinition } from './validate.ts';

export interface CheckResult {
  /** The parsed config, when the text is JSON. */
  config: JsonObject | null;
  /** The imported definition, when the config has no import errors. */
  definition: MachineDefinition | null;
  /** Every finding, each with its source position when one is known. */
  issues: Issue[];
}

/** The nearest span for a path: the path itself or its closest ancestor that exists. */
export function spanFor<S>(spans: Map<string, S>, path: string): S | undefined {
  let p = path;
  for (;;) {
    const span = spans.get(p);
    if (span) return span;
    if (p === '') return undefined;
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    p = cut <= 0 ? '' : p.slice(0, cut);
  }
}

/**
 * JSON text from the code view -> config, definition and every issue: syntax errors
 * (with line/column), duplicate keys, import errors and validation, in that order.
 * Duplicate keys are errors: JSON.parse would silently keep only the last one.
 */
export function checkXStateText(text: string, options: ImportOptions = {}): CheckResult {
  const parsed = parseJsonText(text);
  if (!parsed.ok) return { config: null, definition: null, issues: [parsed.issue] };
  const { value, spans, duplicates } = parsed;
  const issues: Issue[] = [...duplicates];
  const imported = readXState(value, options);
  issues.push(...imported.issues);
  if (imported.definition !== null) issues.push(...validateDefinition(imported.definition));
  for (const issue of issues) {
    if (issue.at) continue;
    const span = spanFor(spans, issue.path);
    if (span) issue.at = at(text, span.start, span.end);
  }
  const config = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  const definition = duplicates.length > 0 ? null : imported.definition;
  return { config, definition, issues };
}

/** One line per issue: `states.checkout.on.PAY[0].target: unknown target "#paid"`. */
export function formatIssue(issue: Issue): string {
  const where = issue.at ? ` (line ${issue.at.line}, column ${issue.at.column})` : '';
  return `${issue.path === '' ? '(machine)' : issue.path}: ${issue.message}${where}`;
}
