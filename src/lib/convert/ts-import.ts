import ts from 'typescript';
import type { ImportOptions } from '../model/import.ts';
import { indexPath, keyPath } from '../model/paths.ts';
import type { Issue, Json, JsonObject } from '../model/types.ts';
import { finish, issueAt, MAX_SOURCE, type ConvertResult, type Spans } from './issues.ts';

/**
 * TypeScript or JavaScript source -> definition, without running any of it: the source is
 * parsed with the TypeScript compiler API, the first `createMachine(...)` (bare, or after
 * `setup(...)`) is found, and its object literal is read as JSON. What is not data is
 * handled by where it stands:
 * - a function under `params`, `input`, `context` or `output` is kept as `{ $expr: source }`;
 * - an inline action or guard (a function, or a call such as `assign(...)`) becomes a named
 *   placeholder `{ type, params: { $expr: source } }`, with a warning to name it in setup();
 * - `and([...])`, `or([...])`, `not(...)` become higher-order guards;
 * - an identifier is followed to a top-level `const` in the same file;
 * - anything else (spreads, computed keys, template substitutions, ...) is reported with its
 *   line and column and left out; the rest imports.
 */

const EXPRESSION_KEYS = new Set(['params', 'input', 'context', 'output']);
const ACTION_KEYS = new Set(['entry', 'exit', 'actions']);
const DROPPED_ROOT_KEYS = new Set(['types', 'schemas']);
const MAX_DEPTH = 200;

class Reader {
  readonly issues: Issue[] = [];
  readonly spans: Spans = new Map();
  private readonly consts = new Map<string, ts.Expression>();
  private readonly following = new Set<string>();

  constructor(
    private readonly text: string,
    private readonly file: ts.SourceFile,
  ) {
    for (const st of file.statements) {
      if (!ts.isVariableStatement(st)) continue;
      if (!(st.declarationList.flags & ts.NodeFlags.Const)) continue;
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer) this.consts.set(d.name.text, d.initializer);
    }
  }

  warn(path: string, node: ts.Node, message: string): void {
    this.issues.push(issueAt(this.text, 'warning', path, message, node.getStart(this.file), node.getEnd()));
  }

  error(path: string, node: ts.Node, message: string): void {
    this.issues.push(issueAt(this.text, 'error', path, message, node.getStart(this.file), node.getEnd()));
  }

  private where(node: ts.Node): string {
    const { line, character } = this.file.getLineAndCharacterOfPosition(node.getStart(this.file));
    return `line ${line + 1}, column ${character + 1}`;
  }

  private source(node: ts.Node): string {
    return node.getText(this.file);
  }

  read(node: ts.Expression, path: string, key: string, depth: number): Json | undefined {
    if (depth > MAX_DEPTH) {
      this.error(path, node, 'nested too deeply to import');
      return undefined;
    }
    const e = unwrap(node);
    this.spans.set(path, { start: e.getStart(this.file), end: e.getEnd() });
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
    if (ts.isNumericLiteral(e)) return Number(e.text);
    if (e.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (e.kind === ts.SyntaxKind.FalseKeyword) return false;
    if (e.kind === ts.SyntaxKind.NullKeyword) return null;
    if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(e.operand))
      return -Number(e.operand.text);
    if (ts.isArrayLiteralExpression(e)) return this.array(e, path, key, depth);
    if (ts.isObjectLiteralExpression(e)) return this.object(e, path, depth);
    if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return this.fn(e, path, key);
    if (ts.isCallExpression(e)) return this.call(e, path, key, depth);
    if (ts.isIdentifier(e)) return this.identifier(e, path, key, depth);
    if (ts.isPropertyAccessExpression(e)) {
      const v = this.member(e, path, key, depth);
      if (v !== undefined) return v;
      if (EXPRESSION_KEYS.has(key)) return { $expr: this.source(e) };
      this.warn(path, e, `${this.source(e).slice(0, 60)} is not a constant in this file; left out`);
      return undefined;
    }
    this.warn(path, e, `${ts.SyntaxKind[e.kind]} is not data the chart can hold; left out`);
    return undefined;
  }

  private array(e: ts.ArrayLiteralExpression, path: string, key: string, depth: number): Json[] {
    const out: Json[] = [];
    e.elements.forEach((el, i) => {
      if (ts.isSpreadElement(el)) {
        const spread = this.spread(el.expression, indexPath(path, i), key, depth);
        if (Array.isArray(spread)) out.push(...spread);
        else
          this.warn(
            indexPath(path, i),
            el,
            'a spread of anything but a constant array in this file cannot be read without running the code; left out',
          );
        return;
      }
      if (ts.isOmittedExpression(el)) return;
      const v = this.read(el, indexPath(path, out.length), key, depth + 1);
      if (v !== undefined) out.push(v);
    });
    return out;
  }

  private object(e: ts.ObjectLiteralExpression, path: string, depth: number): JsonObject {
    const out: JsonObject = {};
    for (const p of e.properties) {
      if (ts.isSpreadAssignment(p)) {
        const spread = this.spread(p.expression, path, '', depth);
        if (spread !== undefined && typeof spread === 'object' && spread !== null && !Array.isArray(spread)) {
          for (const [k, v] of Object.entries(spread))
            Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        } else
          this.warn(
            path,
            p,
            'a spread of anything but a constant object in this file cannot be read without running the code; left out',
          );
        continue;
      }
      const name = p.name ? propertyName(p.name) : null;
      if (name === null) {
        this.warn(path, p, 'a computed key cannot be read without running the code; left out');
        continue;
      }
      if (depth === 0 && DROPPED_ROOT_KEYS.has(name)) continue;
      const at = keyPath(path, name);
      let value: Json | undefined;
      if (ts.isPropertyAssignment(p)) value = this.read(p.initializer, at, name, depth + 1);
      else if (ts.isShorthandPropertyAssignment(p)) value = this.identifier(p.name, at, name, depth + 1);
      else if (ts.isMethodDeclaration(p)) value = this.fn(p, at, name);
      else {
        this.warn(at, p, `${ts.SyntaxKind[p.kind]} is not data the chart can hold; left out`);
        continue;
      }
      if (value !== undefined)
        Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  /** A function: data under expression keys, a named placeholder where an action or guard goes. */
  private fn(e: ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration, path: string, key: string): Json {
    const source = this.source(e);
    if (EXPRESSION_KEYS.has(key)) return { $expr: source };
    // The name JavaScript gives the function: its own, else the property it is assigned to.
    const own = ts.isFunctionExpression(e) && e.name ? e.name.text : null;
    const parent = e.parent;
    const property = ts.isMethodDeclaration(e) || ts.isPropertyAssignment(unwrapParent(parent)) ? key : null;
    const type = own ?? (property !== null && property !== '' ? property : 'inline');
    this.warn(
      path,
      e,
      `an inline function (${this.where(e)}) is kept as a placeholder named "${type}" with its source; name it in setup()`,
    );
    return { type, params: { $expr: source } };
  }

  private call(e: ts.CallExpression, path: string, key: string, depth: number): Json | undefined {
    const callee = ts.isIdentifier(e.expression)
      ? e.expression.text
      : ts.isPropertyAccessExpression(e.expression)
        ? e.expression.name.text
        : null;
    if (callee !== null && (callee === 'and' || callee === 'or') && e.arguments.length === 1) {
      const list = this.read(
        e.arguments[0] as ts.Expression,
        keyPath(keyPath(path, 'params'), 'guards'),
        'guard',
        depth + 1,
      );
      if (Array.isArray(list)) return { type: callee, params: { guards: list } };
    }
    if (callee === 'not' && e.arguments.length === 1) {
      const g = this.read(
        e.arguments[0] as ts.Expression,
        indexPath(keyPath(keyPath(path, 'params'), 'guards'), 0),
        'guard',
        depth + 1,
      );
      if (g !== undefined) return { type: 'not', params: { guards: [g] } };
    }
    const source = this.source(e);
    if (EXPRESSION_KEYS.has(key)) return { $expr: source };
    if (ACTION_KEYS.has(key) || key === 'guard') {
      const type = callee === null ? 'inline' : `xstate.${callee}`;
      this.warn(path, e, `the call ${callee ?? ''}(...) is kept as a placeholder named "${type}" with its source`);
      return { type, params: { $expr: source } };
    }
    this.warn(path, e, `a call to ${callee ?? 'an expression'} cannot be read without running the code; left out`);
    return undefined;
  }

  /** The value spread by `...name` when `name` is a constant of this file (read quietly: the caller reports). */
  private spread(e: ts.Expression, path: string, key: string, depth: number): Json | undefined {
    const inner = unwrap(e);
    if (ts.isPropertyAccessExpression(inner)) return this.member(inner, path, key, depth);
    if (!ts.isIdentifier(inner)) return undefined;
    const init = this.consts.get(inner.text);
    if (init === undefined || this.following.has(inner.text)) return undefined;
    const target = unwrap(init);
    if (!ts.isObjectLiteralExpression(target) && !ts.isArrayLiteralExpression(target)) return undefined;
    return this.identifier(inner, path, key, depth + 1);
  }

  /** `constant.a.b` where `constant` is data in this file: that member's value (read quietly), else undefined. */
  private member(e: ts.PropertyAccessExpression, path: string, key: string, depth: number): Json | undefined {
    const issues = this.issues.length;
    const spans = new Map(this.spans);
    const base = unwrap(e.expression);
    let value: Json | undefined;
    if (ts.isIdentifier(base) && this.consts.has(base.text)) value = this.identifier(base, path, '', depth + 1);
    else if (ts.isPropertyAccessExpression(base)) value = this.member(base, path, '', depth + 1);
    this.issues.length = issues;
    this.spans.clear();
    for (const [k, v] of spans) this.spans.set(k, v);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return Object.hasOwn(value, e.name.text) ? value[e.name.text] : undefined;
  }

  private identifier(e: ts.Identifier, path: string, key: string, depth: number): Json | undefined {
    if (e.text === 'undefined') return undefined;
    const init = this.consts.get(e.text);
    if (init === undefined || this.following.has(e.text)) {
      if (EXPRESSION_KEYS.has(key)) return { $expr: e.text };
      this.warn(path, e, `"${e.text}" is not a constant in this file; left out`);
      return undefined;
    }
    this.following.add(e.text);
    try {
      return this.read(init, path, key, depth + 1);
    } finally {
      this.following.delete(e.text);
    }
  }
}

/** `setup(...).createStateConfig({...})` (XState's typing helper) returns its argument. */
function isIdentityHelper(e: ts.Expression): e is ts.CallExpression {
  if (!ts.isCallExpression(e) || e.arguments.length !== 1) return false;
  const c = e.expression;
  const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : null;
  return name === 'createStateConfig';
}

export function unwrap(e: ts.Expression): ts.Expression {
  let cur = e;
  for (;;) {
    if (ts.isParenthesizedExpression(cur) || ts.isAsExpression(cur) || ts.isNonNullExpression(cur))
      cur = cur.expression;
    else if (ts.isSatisfiesExpression(cur) || ts.isTypeAssertionExpression(cur)) cur = cur.expression;
    else if (isIdentityHelper(cur)) cur = cur.arguments[0] as ts.Expression;
    else return cur;
  }
}

/** The node an expression stands in once parentheses and type assertions are peeled away. */
function unwrapParent(node: ts.Node): ts.Node {
  let cur = node;
  while (
    ts.isParenthesizedExpression(cur) ||
    ts.isAsExpression(cur) ||
    ts.isSatisfiesExpression(cur) ||
    ts.isNonNullExpression(cur)
  )
    cur = cur.parent;
  return cur;
}

export function propertyName(name: ts.PropertyName): string | null {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name)) {
    const inner = unwrap(name.expression);
    if (ts.isStringLiteral(inner) || ts.isNoSubstitutionTemplateLiteral(inner)) return inner.text;
  }
  return null;
}

/** Every `createMachine(...)` call in the file, in source order (an explicit stack: no recursion limit). */
function machineCalls(file: ts.SourceFile): ts.CallExpression[] {
  const found: ts.CallExpression[] = [];
  const stack: ts.Node[] = [file];
  while (stack.length > 0) {
    const node = stack.pop() as ts.Node;
    if (ts.isCallExpression(node)) {
      const c = node.expression;
      const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : null;
      if (name === 'createMachine') found.push(node);
    }
    const children: ts.Node[] = [];
    ts.forEachChild(node, (child) => {
      children.push(child);
    });
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as ts.Node);
  }
  return found.sort((a, b) => a.pos - b.pos);
}

function fail(text: string, message: string, start = 0, end = start): ConvertResult {
  return { definition: null, config: null, issues: [issueAt(text, 'error', '', message, start, end)] };
}

/** Read a machine from TypeScript/JavaScript source. Never throws for bad input; never runs it. */
export function importTypeScript(text: string, options: ImportOptions = {}): ConvertResult {
  if (text.length > MAX_SOURCE) return fail('', `the file is too large to import (over ${MAX_SOURCE} characters)`);
  let file: ts.SourceFile;
  try {
    file = ts.createSourceFile('machine.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  } catch (err) {
    return fail(text, `the source could not be parsed: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const syntax = (file as unknown as { parseDiagnostics?: ts.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
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
    const reader = new Reader(text, file);
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
    return finish(text, config, reader.spans, reader.issues, options);
  } catch (err) {
    // A stack overflow on absurdly nested input, say: still an answer, never a crash.
    return fail(text, `the source could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}
