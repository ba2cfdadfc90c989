import ts from 'typescript';
import { exportXState } from '../model/export.ts';
import type { Json, JsonObject, MachineDefinition } from '../model/types.ts';
import { Printer } from './ts-export.ts';
import { importTypeScript } from './ts-import.ts';
import { machineCalls, parse, propertyName, unwrap } from './ts-syntax.ts';

/**
 * The room's definition written back into the source file it came from, changing only the
 * machine's config and, inside it, only what the room changed.
 *
 * Both sides are compared in `exportXState`'s canonical form: the file's machine as
 * imported, and the room's. Walking the file's config literal alongside them, a part whose
 * canonical value did not change keeps its text byte for byte (its formatting, comments,
 * inline functions, constants it names); a changed object literal is edited property by
 * property (a changed value rewritten, a removed key dropped with its comments, a new key
 * appended in the siblings' indentation); a changed array keeps the text of every element
 * that is still there; anything else that changed is printed anew, with the code the model
 * kept from the source (`$expr`, inline placeholders) printed back as code. Everything
 * outside the config (imports, setup() implementations, types, other code) is untouched.
 */

export type WriteBackResult = { ok: true; text: string; changed: boolean } | { ok: false; error: string };

function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The quote most of the file's string literals use, for the strings written into it. */
function quoteOf(file: ts.SourceFile, text: string): "'" | '"' {
  let single = 0;
  let double = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node)) {
      if (text[node.getStart(file)] === "'") single++;
      else double++;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return single > double ? "'" : '"';
}

/** The config keys whose children are keyed by names a person chooses. */
const RENAMEABLE = new Set(['states', 'on']);

/**
 * Keys that were renamed, old -> new: a key gone from `before` paired with a key new in
 * `after` holding the same value; or, when exactly one key went and one came, those two
 * (a rename with edits inside).
 */
function renames(before: JsonObject, after: JsonObject): Map<string, string> {
  const gone = Object.keys(before).filter((k) => !Object.hasOwn(after, k));
  const come = Object.keys(after).filter((k) => !Object.hasOwn(before, k));
  const out = new Map<string, string>();
  for (const g of gone) {
    const match = come.find((c) => ![...out.values()].includes(c) && deepEqual(before[g], after[c]));
    if (match !== undefined) out.set(g, match);
  }
  const leftGone = gone.filter((g) => !out.has(g));
  const leftCome = come.filter((c) => ![...out.values()].includes(c));
  if (leftGone.length === 1 && leftCome.length === 1) out.set(leftGone[0] as string, leftCome[0] as string);
  return out;
}

class Rewriter {
  private readonly printer: Printer;

  constructor(
    private readonly text: string,
    private readonly file: ts.SourceFile,
  ) {
    this.printer = new Printer({ code: true, quote: quoteOf(file, text) });
  }

  private original(node: ts.Node): string {
    return this.text.slice(node.getStart(this.file), node.getEnd());
  }

  /** The whitespace that starts the line `node` starts on. */
  private lineIndent(node: ts.Node): string {
    const start = node.getStart(this.file);
    const lineStart = this.text.lastIndexOf('\n', start - 1) + 1;
    return /^[ \t]*/.exec(this.text.slice(lineStart, start))?.[0] ?? '';
  }

  private print(value: Json, node: ts.Node, key: string): string {
    return this.printer.value(value, this.lineIndent(node), key);
  }

  /** The text for `node`, whose canonical value was `before` and is to be `after`. */
  rewrite(node: ts.Expression, before: Json | undefined, after: Json, key: string): string {
    if (deepEqual(before, after)) return this.original(node);
    const e = unwrap(node);
    let edited: string | null = null;
    if (ts.isObjectLiteralExpression(e) && isObject(before) && isObject(after))
      edited = this.object(e, before, after, key);
    else if (ts.isArrayLiteralExpression(e) && Array.isArray(before) && Array.isArray(after))
      edited = this.array(e, before, after, key);
    // What wraps the literal (`as const`, `satisfies ...`, parentheses) stays around the edit.
    if (edited !== null)
      return (
        this.text.slice(node.getStart(this.file), e.getStart(this.file)) +
        edited +
        this.text.slice(e.getEnd(), node.getEnd())
      );
    return this.print(after, node, key);
  }

  /** An object literal edited property by property, or null when its keys cannot be followed. */
  private object(e: ts.ObjectLiteralExpression, before: JsonObject, after: JsonObject, key: string): string | null {
    const pieces: string[] = [];
    const seen = new Set<string>();
    // Only names are renamed (a state's key, an event): other keys are the config's own words.
    const renamed = RENAMEABLE.has(key) ? renames(before, after) : new Map<string, string>();
    let carry = '';
    for (const p of e.properties) {
      const leading = carry + this.text.slice(p.getFullStart(), p.getStart(this.file));
      carry = '';
      const name = ts.isSpreadAssignment(p) || !p.name ? null : propertyName(p.name);
      // A spread or a computed key: its keys cannot be told apart here, so keep it as it is.
      if (name === null) {
        pieces.push(leading + this.original(p));
        continue;
      }
      seen.add(name);
      const inBefore = Object.hasOwn(before, name);
      const inAfter = Object.hasOwn(after, name);
      const to = renamed.get(name);
      if (to !== undefined && ts.isPropertyAssignment(p)) {
        // Renamed (a state, an event): the same property under its new key, edited within.
        seen.add(to);
        const value = this.rewrite(p.initializer, before[name], after[to] as Json, to);
        pieces.push(`${leading}${this.printer.key(to)}: ${value}`);
        continue;
      }
      if (!inAfter) {
        // Gone from the chart: dropped with its comments; a key the model never held stays.
        // A comment on the line before belongs to the property before, and stays with it.
        if (!inBefore) pieces.push(leading + this.original(p));
        else if (leading.includes('\n')) carry += leading.slice(0, leading.indexOf('\n'));
        continue;
      }
      const next = after[name] as Json;
      if (inBefore && deepEqual(before[name], next)) {
        pieces.push(leading + this.original(p));
        continue;
      }
      if (ts.isPropertyAssignment(p) && inBefore) {
        const head = this.text.slice(p.getStart(this.file), p.initializer.getStart(this.file));
        pieces.push(leading + head + this.rewrite(p.initializer, before[name], next, name));
        continue;
      }
      pieces.push(`${leading}${this.printer.key(name)}: ${this.print(next, p, name)}`);
    }
    // A key the file gives some other way (a spread, a computed key) and the room changed or
    // removed cannot be edited in place: the object is written anew.
    for (const k of Object.keys(before)) if (!seen.has(k) && !deepEqual(before[k], after[k])) return null;
    const added: [string, Json][] = [];
    for (const [k, v] of Object.entries(after)) {
      if (seen.has(k)) continue;
      if (!Object.hasOwn(before, k)) added.push([k, v]);
      // The file says this some other way (another key, a spread): it cannot be edited in place.
      else if (!deepEqual(before[k], v)) return null;
    }
    const close = e.getEnd() - 1;
    const last = e.properties[e.properties.length - 1];
    const tail = last ? this.text.slice(last.getEnd(), close) : this.text.slice(e.getStart(this.file) + 1, close);
    const trailingComma = /^\s*,/.test(tail);
    const rest = trailingComma ? tail.replace(/^\s*,/, '') : tail;
    if (added.length > 0) {
      const first = e.properties[0];
      const multiline = first ? this.text.slice(first.getFullStart(), first.getStart(this.file)).includes('\n') : true;
      const indent = first ? this.lineIndent(first) : `${this.lineIndent(e)}  `;
      for (const [k, v] of added) {
        const value = this.printer.value(v, indent, k);
        pieces.push(multiline ? `\n${indent}${this.printer.key(k)}: ${value}` : ` ${this.printer.key(k)}: ${value}`);
      }
      if (!last) return `{${pieces.join(',')},\n${this.lineIndent(e)}}`;
    }
    if (pieces.length === 0) return '{}';
    return `{${pieces.join(',')}${trailingComma ? ',' : ''}${carry}${rest}}`;
  }

  /**
   * An array whose elements map one to one: each element rewritten in place; otherwise the
   * new array, reusing the text of every element that is still there unchanged.
   */
  private array(e: ts.ArrayLiteralExpression, before: Json[], after: Json[], key: string): string | null {
    const elements = [...e.elements];
    if (elements.some((el) => ts.isSpreadElement(el) || ts.isOmittedExpression(el))) return null;
    if (elements.length !== before.length) return null;
    const multiline = this.text.slice(e.getStart(this.file), e.getEnd()).includes('\n');
    const indent = elements[0] ? this.lineIndent(elements[0]) : `${this.lineIndent(e)}  `;
    if (before.length === after.length) {
      const pieces = elements.map((el, i) => {
        const leading = this.text.slice(el.getFullStart(), el.getStart(this.file));
        return leading + this.rewrite(el, before[i], after[i] as Json, key);
      });
      const last = elements[elements.length - 1];
      const tail = last ? this.text.slice(last.getEnd(), e.getEnd() - 1) : '';
      return `[${pieces.join(',')}${tail}]`;
    }
    const used = new Set<number>();
    const items = after.map((v) => {
      const j = before.findIndex((b, i) => !used.has(i) && deepEqual(b, v));
      if (j !== -1) {
        used.add(j);
        return this.original(elements[j] as ts.Expression);
      }
      return this.printer.value(v, multiline ? indent : this.lineIndent(e), key);
    });
    if (items.length === 0) return '[]';
    if (!multiline) return `[${items.join(', ')}]`;
    return `[\n${items.map((t) => `${indent}${t},`).join('\n')}\n${this.lineIndent(e)}]`;
  }
}

/**
 * `source` (the file a machine was imported from) with its first machine's config changed
 * to `definition`. Never throws: a file that no longer imports, or has no machine, is an error.
 */
export function writeBackTypeScript(
  source: string,
  definition: MachineDefinition,
  fileName = 'machine.ts',
): WriteBackResult {
  const read = importTypeScript(source, { fileName });
  if (read.definition === null) {
    const first = read.issues.find((i) => i.severity === 'error');
    return { ok: false, error: `the file does not import: ${first?.message ?? 'no machine found'}` };
  }
  const before = exportXState(read.definition);
  const after = exportXState(definition);
  if (deepEqual(before, after)) return { ok: true, text: source, changed: false };
  const file = parse(source, fileName);
  const call = machineCalls(file)[0];
  const arg = call?.arguments[0];
  if (!arg) return { ok: false, error: 'no createMachine({...}) call found in the file' };
  const text = new Rewriter(source, file).rewrite(arg, before, after, '');
  return { ok: true, text: source.slice(0, arg.getStart(file)) + text + source.slice(arg.getEnd()), changed: true };
}
