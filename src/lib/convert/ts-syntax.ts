import ts from 'typescript';

/** Syntax helpers for the TypeScript importer: parsing by file name, and reading nodes as written. */

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
export function unwrapParent(node: ts.Node): ts.Node {
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

/** How many transitions a value in `on`, `after`, `always` ... stands for. */
export function countTransitions(node: ts.Node): number {
  const e = ts.isExpression(node) ? unwrap(node) : node;
  return ts.isArrayLiteralExpression(e) ? e.elements.length : 1;
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
export function machineCalls(file: ts.SourceFile): ts.CallExpression[] {
  const found: ts.CallExpression[] = [];
  const stack: ts.Node[] = [file];
  while (stack.length > 0) {
    const node = stack.pop() as ts.Node;
    if (ts.isCallExpression(node)) {
      const c = node.expression;
      const name = ts.isIdentifier(c) ? c.text : ts.isPropertyAccessExpression(c) ? c.name.text : null;
      if (name === 'createMachine' || (name === 'Machine' && ts.isIdentifier(c))) found.push(node);
    }
    const children: ts.Node[] = [];
    ts.forEachChild(node, (child) => {
      children.push(child);
    });
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as ts.Node);
  }
  return found.sort((a, b) => a.pos - b.pos);
}

/** The syntax a file is in, by its name: JSX only in .tsx/.jsx (in .ts, `<T>x` is a type assertion). */
function scriptKind(fileName: string): ts.ScriptKind | null {
  const ext = fileName.toLowerCase().split('.').pop() ?? '';
  if (ext === 'tsx') return ts.ScriptKind.TSX;
  if (ext === 'jsx') return ts.ScriptKind.JSX;
  if (ext === 'js' || ext === 'mjs' || ext === 'cjs') return ts.ScriptKind.JS;
  if (ext === 'ts' || ext === 'mts' || ext === 'cts') return ts.ScriptKind.TS;
  return null;
}

export function syntaxErrors(file: ts.SourceFile): ts.DiagnosticWithLocation[] {
  return (file as unknown as { parseDiagnostics?: ts.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
}

/** Parsed by the file's name; pasted text (no name) that is not TypeScript is tried as TSX. */
export function parse(text: string, fileName: string): ts.SourceFile {
  const kind = scriptKind(fileName);
  const as = (k: ts.ScriptKind): ts.SourceFile =>
    ts.createSourceFile(k === ts.ScriptKind.TSX ? 'machine.tsx' : 'machine.ts', text, ts.ScriptTarget.Latest, true, k);
  if (kind !== null) return as(kind);
  const plain = as(ts.ScriptKind.TS);
  if (syntaxErrors(plain).length === 0) return plain;
  const tsx = as(ts.ScriptKind.TSX);
  return syntaxErrors(tsx).length === 0 ? tsx : plain;
}

/** How many states a state config written in the source holds, itself included. */
export function countStates(node: ts.Node): number {
  const e = ts.isExpression(node) ? unwrap(node) : node;
  if (!ts.isObjectLiteralExpression(e)) return 1;
  const states = e.properties.find((p) => p.name !== undefined && propertyName(p.name) === 'states');
  if (!states || !ts.isPropertyAssignment(states)) return 1;
  const map = unwrap(states.initializer);
  if (!ts.isObjectLiteralExpression(map)) return 1;
  return map.properties.reduce((n, p) => n + (ts.isPropertyAssignment(p) ? countStates(p.initializer) : 1), 1);
}

export function isCall(e: ts.CallExpression, name: string): boolean {
  return ts.isIdentifier(e.expression) && e.expression.text === name;
}
