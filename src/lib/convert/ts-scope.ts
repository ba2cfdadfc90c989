import ts from 'typescript';
import type { Issue, Json, JsonObject } from '../model/types.ts';
import { issueAt, type Spans } from './issues.ts';
import { LeftOutTally } from './ts-left-out.ts';
import { propertyName, unwrap } from './ts-syntax.ts';

/**
 * What the TypeScript importer knows about the whole file before reading the machine: its
 * top-level consts, enums, functions and imports (an identifier in the config is followed
 * to them), and the issues and spans found so far, with their line and column. The reader
 * (ts-reader.ts) builds on it.
 */
export class SourceScope {
  readonly issues: Issue[] = [];
  readonly spans: Spans = new Map();
  readonly v4Changes: string[] = [];
  protected readonly consts = new Map<string, ts.Expression>();
  protected readonly enums = new Map<string, JsonObject>();
  protected readonly functions = new Map<string, ts.FunctionDeclaration>();
  /** Imported names -> the module they come from. */
  protected readonly imports = new Map<string, string>();
  readonly tally: LeftOutTally;

  constructor(
    protected readonly text: string,
    protected readonly file: ts.SourceFile,
  ) {
    this.tally = new LeftOutTally(this.imports, (node) => this.source(node));
    for (const st of file.statements) {
      if (ts.isEnumDeclaration(st)) this.enums.set(st.name.text, this.enumValues(st));
      else if (ts.isFunctionDeclaration(st) && st.name) this.functions.set(st.name.text, st);
      else if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
        const from = st.moduleSpecifier.text;
        const clause = st.importClause;
        if (clause?.name) this.imports.set(clause.name.text, from);
        const bindings = clause?.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) this.imports.set(bindings.name.text, from);
        else if (bindings) for (const el of bindings.elements) this.imports.set(el.name.text, from);
      }
      if (!ts.isVariableStatement(st)) continue;
      if (!(st.declarationList.flags & ts.NodeFlags.Const)) continue;
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer) this.consts.set(d.name.text, d.initializer);
    }
  }

  /** A local enum's members: string and number initialisers, numbers counting on from the last. */
  private enumValues(e: ts.EnumDeclaration): JsonObject {
    const out: JsonObject = {};
    let next = 0;
    for (const m of e.members) {
      const name = propertyName(m.name);
      if (name === null) continue;
      const init = m.initializer ? unwrap(m.initializer) : undefined;
      let value: Json | undefined;
      if (init === undefined) value = next;
      else if (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init)) value = init.text;
      else if (ts.isNumericLiteral(init)) value = Number(init.text);
      if (value === undefined) continue;
      if (typeof value === 'number') next = value + 1;
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  /** Reads without reporting: for a value tried before a fallback. */
  protected quiet<T>(f: () => T): T {
    const issues = this.issues.length;
    const spans = new Map(this.spans);
    const restore = this.tally.save();
    try {
      return f();
    } finally {
      this.issues.length = issues;
      this.spans.clear();
      for (const [k, v] of spans) this.spans.set(k, v);
      restore();
    }
  }

  warn(path: string, node: ts.Node, message: string): void {
    this.issues.push(issueAt(this.text, 'warning', path, message, node.getStart(this.file), node.getEnd()));
  }

  error(path: string, node: ts.Node, message: string): void {
    this.issues.push(issueAt(this.text, 'error', path, message, node.getStart(this.file), node.getEnd()));
  }

  protected where(node: ts.Node): string {
    const { line, character } = this.file.getLineAndCharacterOfPosition(node.getStart(this.file));
    return `line ${line + 1}, column ${character + 1}`;
  }

  protected source(node: ts.Node): string {
    return node.getText(this.file);
  }
}
