import ts from 'typescript';
import type { Issue, Json, JsonObject } from '../model/types.ts';
import { issueAt, type Spans } from './issues.ts';
import { LeftOutTally } from './ts-left-out.ts';
import { propertyName, unwrap } from './ts-syntax.ts';

/**
 * One source file's top level: its consts, enums, functions and imports (an identifier in
 * the config is followed to them). `imports` maps each imported name to its module and the
 * name it has there (`null` for a default or namespace import).
 */
export interface ModuleScope {
  /** Where the file is (the path the resolver gave; this file's own name for the file imported). */
  path: string;
  consts: Map<string, ts.Expression>;
  enums: Map<string, JsonObject>;
  functions: Map<string, ts.FunctionDeclaration>;
  imports: Map<string, { from: string; name: string | null }>;
}

export function moduleScope(file: ts.SourceFile, path: string): ModuleScope {
  const mod: ModuleScope = { path, consts: new Map(), enums: new Map(), functions: new Map(), imports: new Map() };
  for (const st of file.statements) {
    if (ts.isEnumDeclaration(st)) mod.enums.set(st.name.text, enumValues(st));
    else if (ts.isFunctionDeclaration(st) && st.name) mod.functions.set(st.name.text, st);
    else if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const from = st.moduleSpecifier.text;
      const clause = st.importClause;
      if (clause?.name) mod.imports.set(clause.name.text, { from, name: null });
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) mod.imports.set(bindings.name.text, { from, name: null });
      else if (bindings)
        for (const el of bindings.elements)
          mod.imports.set(el.name.text, { from, name: (el.propertyName ?? el.name).text });
    }
    if (!ts.isVariableStatement(st)) continue;
    if (!(st.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const d of st.declarationList.declarations)
      if (ts.isIdentifier(d.name) && d.initializer) mod.consts.set(d.name.text, d.initializer);
  }
  return mod;
}

/** A local enum's members: string and number initialisers, numbers counting on from the last. */
function enumValues(e: ts.EnumDeclaration): JsonObject {
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

/**
 * What the TypeScript importer knows about the file before reading the machine: its top
 * level (`mod`, which the reader swaps for another file's while it reads a helper imported
 * from there), and the issues and spans found so far, with their line and column. What is
 * read in another file is reported where it is used in this one (`anchor`). The reader
 * (ts-reader.ts) builds on it.
 */
export class SourceScope {
  readonly issues: Issue[] = [];
  readonly spans: Spans = new Map();
  readonly v4Changes: string[] = [];
  /** The top level identifiers are looked up in: this file's, or an imported module's while its helper is read. */
  protected mod: ModuleScope;
  /** While a helper of another file is read: the node in this file that uses it (its call or spread). */
  protected anchor: ts.Node | null = null;
  readonly tally: LeftOutTally;

  constructor(
    protected readonly text: string,
    protected readonly file: ts.SourceFile,
    fileName = '',
  ) {
    this.mod = moduleScope(file, fileName);
    const imports = new Map([...this.mod.imports].map(([name, { from }]) => [name, from]));
    this.tally = new LeftOutTally(imports, (node) => this.source(node));
  }

  /** Where a node is reported: itself in this file, else the place in this file that reads it. */
  protected here(node: ts.Node): ts.Node {
    return this.anchor !== null && node.getSourceFile() !== this.file ? this.anchor : node;
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
    const at = this.here(node);
    this.issues.push(issueAt(this.text, 'warning', path, message, at.getStart(this.file), at.getEnd()));
  }

  error(path: string, node: ts.Node, message: string): void {
    const at = this.here(node);
    this.issues.push(issueAt(this.text, 'error', path, message, at.getStart(this.file), at.getEnd()));
  }

  protected where(node: ts.Node): string {
    const { line, character } = this.file.getLineAndCharacterOfPosition(this.here(node).getStart(this.file));
    return `line ${line + 1}, column ${character + 1}`;
  }

  /** A node's text as written, in whichever file it stands. */
  protected source(node: ts.Node): string {
    return this.anchor === null ? node.getText(this.file) : node.getText();
  }
}
