import ts from 'typescript';
import { indexPath, keyPath } from '../model/paths.ts';
import type { Json, JsonObject } from '../model/types.ts';
import { ImportedModules, type ModuleResolver } from './ts-imports.ts';
import { SourceScope, type ModuleScope } from './ts-scope.ts';
import { countStates, countTransitions, propertyName, unwrap, unwrapParent } from './ts-syntax.ts';

/**
 * Reads a machine config's object literal as JSON, expression by expression (see
 * ts-import.ts for what becomes of what is not data). With a `ModuleResolver`, a helper or
 * constant imported from another file is read in that file's top level, and whatever it
 * reports is placed where this file uses it.
 */

const EXPRESSION_KEYS = new Set(['params', 'input', 'context', 'output']);
const ACTION_KEYS = new Set(['entry', 'exit', 'actions']);
const DROPPED_ROOT_KEYS = new Set(['types', 'schemas']);
/** v4 root keys v5 does not read: left out, and listed among the migration's changes. */
const V4_ROOT_KEYS = new Set(['schema', 'tsTypes', 'predictableActionArguments', 'preserveActionOrder', 'strict']);
/** Keys whose value is one transition or a list of them; `on` and `after` map to them. */
const TRANSITION_KEYS = new Set(['always', 'onDone', 'onError', 'onSnapshot']);
const TRANSITION_MAPS = new Set(['on', 'after']);
/** Meta key holding the source of a state's inline actors, by placeholder name. */
export const ACTOR_SOURCES = 'chartroom.actors';

/** An argument bound to a helper's parameter, read where the call stands (in that file). */
interface Binding {
  expr: ts.Expression;
  scope: Map<string, Binding>;
  mod: ModuleScope;
}

const MAX_DEPTH = 200;

export class Reader extends SourceScope {
  private readonly following = new Set<string>();
  /** What the files this one imports hold, read once each. */
  private readonly imports: ImportedModules;

  constructor(text: string, file: ts.SourceFile, fileName = '', resolve: ModuleResolver | null = null) {
    super(text, file, fileName);
    this.imports = new ImportedModules(resolve);
  }

  private scope = new Map<string, Binding>();
  /** The state whose `invoke` is being read: its path and key. */
  private owner: { path: string; key: string } | null = null;
  private readonly actors = new Map<string, JsonObject>();

  read(node: ts.Expression, path: string, key: string, depth: number): Json | undefined {
    if (depth > MAX_DEPTH) {
      this.error(path, node, 'nested too deeply to import');
      return undefined;
    }
    const e = unwrap(node);
    const at = this.here(e);
    this.spans.set(path, { start: at.getStart(this.file), end: at.getEnd() });
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
    if (ts.isNumericLiteral(e)) return Number(e.text);
    if (e.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (e.kind === ts.SyntaxKind.FalseKeyword) return false;
    if (e.kind === ts.SyntaxKind.NullKeyword) return null;
    if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(e.operand))
      return -Number(e.operand.text);
    if (ts.isArrayLiteralExpression(e)) return this.array(e, path, key, depth);
    if (ts.isObjectLiteralExpression(e)) return this.object(e, path, depth, key);
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

  private object(e: ts.ObjectLiteralExpression, path: string, depth: number, key = ''): JsonObject | undefined {
    const out: JsonObject = {};
    const inStates = key === 'states';
    const inTransitions = TRANSITION_MAPS.has(key);
    // A history state's `target` is its default, not a transition: without it the state stays.
    const isHistory = e.properties.some((p) => p.name !== undefined && propertyName(p.name) === 'history');
    let dropped = false;
    for (const p of e.properties) {
      if (ts.isSpreadAssignment(p)) {
        const spread = this.spread(p.expression, path, '', depth);
        if (spread !== undefined && typeof spread === 'object' && spread !== null && !Array.isArray(spread)) {
          for (const [k, v] of Object.entries(spread))
            Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
        } else {
          this.warn(
            path,
            p,
            'a spread of anything but a constant object in this file cannot be read without running the code; left out',
          );
          if (inStates || inTransitions) this.tally.leave('unknown', 1, p);
        }
        continue;
      }
      const name = p.name ? this.keyName(p.name, depth) : null;
      if (name === null) {
        this.warn(path, p, 'a computed key cannot be read without running the code; left out');
        const init = ts.isPropertyAssignment(p) ? p.initializer : p;
        if (inStates) this.tally.leave('states', countStates(init), p.name ?? p);
        else if (inTransitions) this.tally.leave('transitions', countTransitions(init), p.name ?? p);
        continue;
      }
      if (depth === 0 && DROPPED_ROOT_KEYS.has(name)) continue;
      if (depth === 0 && V4_ROOT_KEYS.has(name)) {
        this.v4Changes.push(`${name} removed`);
        continue;
      }
      const at = keyPath(path, name);
      const before = this.tally.total;
      const owner = this.owner;
      if (name === 'invoke') this.owner = { path, key };
      let value: Json | undefined;
      if (ts.isPropertyAssignment(p))
        value =
          name === 'src' && key === 'invoke'
            ? this.actor(p.initializer, e, at, depth)
            : this.read(p.initializer, at, name, depth + 1);
      else if (ts.isShorthandPropertyAssignment(p)) value = this.identifier(p.name, at, name, depth + 1);
      else if (ts.isMethodDeclaration(p)) value = this.fn(p, at, name);
      else {
        this.warn(at, p, `${ts.SyntaxKind[p.kind]} is not data the chart can hold; left out`);
        continue;
      }
      this.owner = owner;
      if (value === undefined && this.tally.total === before) {
        // Nothing inside said what was lost: count it here, by where it stood.
        const init = ts.isPropertyAssignment(p) ? p.initializer : p;
        if (name === 'target' && !inStates && !isHistory) {
          this.tally.leave('transitions', 1, init);
          dropped = true;
        } else if (inStates) this.tally.leave('states', countStates(init), init);
        else if (inTransitions || TRANSITION_KEYS.has(name))
          this.tally.leave('transitions', countTransitions(init), init);
        else if (name === 'states' || name === 'on' || name === 'after') this.tally.leave('unknown', 1, init);
      } else if (value === undefined && name === 'target' && !isHistory) dropped = true;
      if (value !== undefined)
        Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    }
    // A transition whose target could not be read is left out whole, never imported as targetless.
    if (dropped) return undefined;
    const sources = this.actors.get(path);
    if (sources !== undefined) {
      this.actors.delete(path);
      const meta = typeof out.meta === 'object' && out.meta !== null && !Array.isArray(out.meta) ? out.meta : {};
      out.meta = { ...meta, [ACTOR_SOURCES]: sources };
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
    const isAction = ACTION_KEYS.has(key) || key === 'guard' || key === 'cond';
    if (!isAction && ts.isIdentifier(e.expression)) {
      const helped = this.helper(e, e.expression.text, path, key, depth);
      if (helped !== null) return helped;
    }
    if (isAction) {
      const type = callee === null ? 'inline' : `xstate.${callee}`;
      this.warn(path, e, `the call ${callee ?? ''}(...) is kept as a placeholder named "${type}" with its source`);
      return { type, params: { $expr: source } };
    }
    this.warn(path, e, `a call to ${callee ?? 'an expression'} cannot be read without running the code; left out`);
    return undefined;
  }

  /**
   * A call to a helper of this file whose body returns one expression (`function state(next) {
   * return { on: { NEXT: next } } }`): that expression, its parameters bound to the arguments.
   * null when the callee is not such a helper.
   */
  private helper(
    e: ts.CallExpression,
    name: string,
    path: string,
    key: string,
    depth: number,
  ): Json | undefined | null {
    const found = this.imports.lookUp(this.mod, name);
    if (!found || this.following.has(`${found.mod.path}#${name}`)) return null;
    const { mod, init } = found;
    const fn = found.fn ?? (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) ? init : undefined);
    if (!fn?.body) return null;
    let body: ts.Expression | undefined;
    if (!ts.isBlock(fn.body)) body = fn.body;
    else if (fn.body.statements.length === 1) {
      const only = fn.body.statements[0];
      if (only && ts.isReturnStatement(only)) body = only.expression;
    }
    if (body === undefined) return null;
    const scope = new Map<string, Binding>();
    fn.parameters.forEach((param, i) => {
      if (!ts.isIdentifier(param.name)) return;
      const arg = e.arguments[i];
      if (arg !== undefined) scope.set(param.name.text, { expr: arg, scope: this.scope, mod: this.mod });
      else if (param.initializer) scope.set(param.name.text, { expr: param.initializer, scope: new Map(), mod });
    });
    const saved = this.scope;
    this.scope = scope;
    return this.within(mod, e, `${mod.path}#${name}`, () => {
      try {
        return this.read(body, path, key, depth + 1);
      } finally {
        this.scope = saved;
      }
    });
  }

  /** Reads in another file's top level (or this one's), reported at `use` in this file, guarding against cycles. */
  private within<T>(mod: ModuleScope, use: ts.Node, key: string, f: () => T): T {
    const saved = { mod: this.mod, anchor: this.anchor };
    if (mod !== this.mod && this.anchor === null) this.anchor = use;
    this.mod = mod;
    this.following.add(key);
    try {
      return f();
    } finally {
      this.following.delete(key);
      this.mod = saved.mod;
      this.anchor = saved.anchor;
    }
  }

  /** A state key written `[States.Idle]` or `[KEY]`: the constant's value when this file has it. */
  private keyName(name: ts.PropertyName, depth: number): string | null {
    const plain = propertyName(name);
    if (plain !== null || !ts.isComputedPropertyName(name)) return plain;
    const v = this.quiet(() => this.read(name.expression, '', '', depth + 1));
    return typeof v === 'string' || typeof v === 'number' ? String(v) : null;
  }

  /**
   * An actor's `src`: a name stays; an inline actor (`fromPromise(...)`, a callback) becomes a
   * placeholder named after its invoke id or state, its source kept in the state's meta.
   */
  private actor(
    value: ts.Expression,
    invoke: ts.ObjectLiteralExpression,
    path: string,
    depth: number,
  ): Json | undefined {
    const e = unwrap(value);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || this.owner === null)
      return this.read(value, path, 'src', depth + 1);
    if (ts.isIdentifier(e) && !this.mod.consts.has(e.text) && !this.scope.has(e.text)) {
      this.warn(
        path,
        e,
        `the actor ${e.text} is kept as a placeholder named "${e.text}"; provide it in setup({ actors })`,
      );
      return e.text;
    }
    const id = invoke.properties.find(
      (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && propertyName(p.name) === 'id',
    );
    const idText =
      id && ts.isStringLiteral(unwrap(id.initializer)) ? (unwrap(id.initializer) as ts.StringLiteral).text : null;
    const callee =
      ts.isCallExpression(e) && ts.isIdentifier(e.expression)
        ? e.expression.text
        : ts.isIdentifier(e)
          ? e.text
          : 'actor';
    const name = idText ?? `${this.owner.key || 'machine'}.${callee}`;
    const sources = this.actors.get(this.owner.path) ?? {};
    sources[name] = this.source(e);
    this.actors.set(this.owner.path, sources);
    this.warn(
      path,
      e,
      `an inline actor (${this.where(e)}) is kept as a placeholder named "${name}" with its source; name it in setup({ actors })`,
    );
    return name;
  }

  /** The value spread by `...name` when `name` is a constant of this file (read quietly: the caller reports). */
  private spread(e: ts.Expression, path: string, key: string, depth: number): Json | undefined {
    const inner = unwrap(e);
    if (ts.isPropertyAccessExpression(inner)) return this.member(inner, path, key, depth);
    // `...request({...})`: a helper of this file, or of a file it imports, that returns a config.
    if (ts.isCallExpression(inner) && ts.isIdentifier(inner.expression))
      return this.helper(inner, inner.expression.text, path, key, depth) ?? undefined;
    if (!ts.isIdentifier(inner)) return undefined;
    const init = this.imports.lookUp(this.mod, inner.text)?.init;
    if (init === undefined || this.following.has(`${this.mod.path}#${inner.text}`)) return undefined;
    const target = unwrap(init);
    // A constant holding a helper's result (`const ends = request({...})`) is read through the helper.
    if (!ts.isObjectLiteralExpression(target) && !ts.isArrayLiteralExpression(target) && !ts.isCallExpression(target))
      return undefined;
    return this.identifier(inner, path, key, depth + 1);
  }

  /** `constant.a.b` where `constant` is data in this file: that member's value (read quietly), else undefined. */
  private member(e: ts.PropertyAccessExpression, path: string, key: string, depth: number): Json | undefined {
    const base = unwrap(e.expression);
    const value = this.quiet((): Json | undefined => {
      if (ts.isIdentifier(base) && this.mod.enums.has(base.text)) return this.mod.enums.get(base.text);
      if (ts.isIdentifier(base) && (this.mod.consts.has(base.text) || this.scope.has(base.text)))
        return this.identifier(base, path, '', depth + 1);
      if (ts.isPropertyAccessExpression(base)) return this.member(base, path, '', depth + 1);
      return undefined;
    });
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return Object.hasOwn(value, e.name.text) ? value[e.name.text] : undefined;
  }

  private identifier(e: ts.Identifier, path: string, key: string, depth: number): Json | undefined {
    if (e.text === 'undefined') return undefined;
    const bound = this.scope.get(e.text);
    if (bound) {
      const saved = { scope: this.scope, mod: this.mod };
      this.scope = bound.scope;
      this.mod = bound.mod;
      try {
        return this.read(bound.expr, path, key, depth + 1);
      } finally {
        this.scope = saved.scope;
        this.mod = saved.mod;
      }
    }
    const found = this.imports.lookUp(this.mod, e.text);
    const init = found?.init;
    if (!found || init === undefined || this.following.has(`${found.mod.path}#${e.text}`)) {
      if (EXPRESSION_KEYS.has(key)) return { $expr: e.text };
      this.warn(path, e, `"${e.text}" is not a constant in this file; left out`);
      return undefined;
    }
    return this.within(found.mod, e, `${found.mod.path}#${e.text}`, () => this.read(init, path, key, depth + 1));
  }
}
