import ts from 'typescript';
import { finish, issueAt, MAX_SOURCE, type ConvertOptions, type ConvertResult, describeLeftOut } from './issues.ts';
import { Reader } from './ts-reader.ts';
import { isCall } from './ts-syntax.ts';
import { machineCalls, parse, propertyName, syntaxErrors, unwrap } from './ts-syntax.ts';
import { migrateV4 } from './v4-migrate.ts';

export { ACTOR_SOURCES } from './ts-reader.ts';

/**
 * TypeScript or JavaScript source -> definition, without running any of it: the source is
 * parsed with the TypeScript compiler API, the first `createMachine(...)` (bare, or after
 * `setup(...)`) is found, and its object literal is read as JSON. What is not data is
 * handled by where it stands:
 * - a function under `params`, `input`, `context` or `output` is kept as `{ $expr: source }`;
 * - an inline action or guard (a function, or a call such as `assign(...)`) becomes a named
 *   placeholder `{ type, params: { $expr: source } }`, with a warning to name it in setup();
 * - `and([...])`, `or([...])`, `not(...)` become higher-order guards;
 * - an inline actor (`src: fromPromise(...)`) becomes a named placeholder `src`, its source
 *   kept in the state's `meta["chartroom.actors"]`;
 * - an identifier is followed to a top-level `const` or `enum` in the same file, and a call
 *   (or spread of a call) to a helper of this file that returns an expression is read with
 *   its arguments; given `resolveModule`, a helper or constant imported from another file
 *   is read there the same way (reported where this file uses it);
 * - anything else (spreads, computed keys, template substitutions, ...) is reported with its
 *   line and column and left out; the rest imports. States and transitions left out are
 *   counted, with why, in the result's `leftOut`.
 * An XState v4 config (`Machine(...)`, `cond`, `internal`, ...) is migrated to v5.
 */

function fail(text: string, message: string, start = 0, end = start): ConvertResult {
  return { definition: null, config: null, issues: [issueAt(text, 'error', '', message, start, end)] };
}

/** Read a machine from TypeScript/JavaScript source. Never throws for bad input; never runs it. */
export function importTypeScript(text: string, options: ConvertOptions = {}): ConvertResult {
  if (text.length > MAX_SOURCE) return fail('', `the file is too large to import (over ${MAX_SOURCE} characters)`);
  const { fileName = '', resolveModule, ...importOptions } = options;
  let file: ts.SourceFile;
  try {
    file = parse(text, fileName);
  } catch (err) {
    return fail(text, `the source could not be parsed: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const syntax = syntaxErrors(file);
    if (syntax.length > 0) {
      return {
        definition: null,
        config: null,
        issues: syntax
          .slice(0, 20)
          .map((d) =>
            issueAt(
              text,
              'error',
              '',
              `syntax error: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
              d.start,
              d.start + d.length,
            ),
          ),
      };
    }
    const calls = machineCalls(file);
    const first = calls[0];
    if (!first)
      return fail(
        text,
        'no createMachine(...) call found: expected createMachine({...}) or setup({...}).createMachine({...})',
      );
    const arg = first.arguments[0];
    if (!arg) return fail(text, 'createMachine() has no config argument', first.getStart(file), first.getEnd());
    const reader = new Reader(text, file, fileName, resolveModule ?? null);
    if (calls.length > 1) {
      reader.warn(
        '',
        calls[1] as ts.CallExpression,
        `the file has ${calls.length} machines; only the first was imported`,
      );
    }
    const config = reader.read(arg, '', '', 0);
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      return {
        definition: null,
        config: null,
        issues: [
          ...reader.issues,
          issueAt(text, 'error', '', 'the machine config is not an object literal', arg.getStart(file), arg.getEnd()),
        ],
      };
    }
    const migrated = migrateV4(config);
    const changes = [...reader.v4Changes, ...migrated.changes];
    if (isCall(first, 'Machine')) changes.unshift('Machine() → createMachine()');
    const implementations = first.arguments[1] ? unwrap(first.arguments[1]) : undefined;
    if (
      implementations &&
      ts.isObjectLiteralExpression(implementations) &&
      implementations.properties.some((p) => p.name !== undefined && propertyName(p.name) === 'services')
    )
      changes.push('services → actors (provide them in setup({ actors }))');
    if (changes.length > 0)
      reader.issues.unshift(
        issueAt(
          text,
          'warning',
          '',
          `migrated from XState v4 to v5: ${changes.join('; ')}`,
          first.getStart(file),
          first.getEnd(),
        ),
      );
    const leftOut = reader.tally.result();
    const result = finish(text, migrated.config, reader.spans, reader.issues, importOptions);
    if (!leftOut) return result;
    const summary = describeLeftOut(leftOut) ?? '';
    return { ...result, issues: [issueAt(text, 'warning', '', summary, 0), ...result.issues], leftOut };
  } catch (err) {
    // A stack overflow on absurdly nested input, say: still an answer, never a crash.
    return fail(text, `the source could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}
