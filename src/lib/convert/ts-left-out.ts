import ts from 'typescript';
import type { LeftOut } from './issues.ts';

type Kind = 'states' | 'transitions' | 'unknown';

/**
 * The tally of what the TypeScript importer could not read, by kind and by where it comes
 * from ("4 state keys come from "Step", defined in another file (./steps)").
 */
export class LeftOutTally {
  private left = new Map<string, { kind: Kind; count: number; origin: string }>();
  /** Everything counted so far, so a caller can tell whether a read counted its own loss. */
  total = 0;

  constructor(
    /** Imported names -> the module they come from. */
    private readonly imports: ReadonlyMap<string, string>,
    private readonly source: (node: ts.Node) => string,
  ) {}

  /** What a part the reader cannot follow comes from, in words. */
  private origin(e: ts.Node): string {
    let cur: ts.Node = e;
    for (;;) {
      if (ts.isComputedPropertyName(cur) || ts.isSpreadElement(cur) || ts.isSpreadAssignment(cur)) cur = cur.expression;
      else if (ts.isPropertyAccessExpression(cur) || ts.isElementAccessExpression(cur)) cur = cur.expression;
      else if (ts.isCallExpression(cur)) cur = cur.expression;
      else if (ts.isParenthesizedExpression(cur) || ts.isAsExpression(cur) || ts.isNonNullExpression(cur))
        cur = cur.expression;
      else break;
    }
    if (!ts.isIdentifier(cur)) return `code that runs (${this.source(e).slice(0, 40)})`;
    const from = this.imports.get(cur.text);
    if (from !== undefined) return `"${cur.text}", defined in another file (${from})`;
    return `"${cur.text}", which this file does not define as a constant`;
  }

  /** Counts a part of the machine left out, grouped by why. */
  leave(kind: Kind, count: number, node: ts.Node): void {
    if (count <= 0) return;
    const origin = this.origin(node);
    const k = `${kind}|${origin}`;
    const entry = this.left.get(k) ?? { kind, count: 0, origin };
    entry.count += count;
    this.left.set(k, entry);
    this.total += count;
  }

  /** A copy to go back to after a read whose findings are thrown away. */
  save(): () => void {
    const left = new Map([...this.left].map(([k, v]) => [k, { ...v }]));
    const total = this.total;
    return () => {
      this.left = left;
      this.total = total;
    };
  }

  result(): LeftOut | undefined {
    if (this.left.size === 0) return undefined;
    const out: LeftOut = { states: 0, transitions: 0, unknown: 0, reasons: [] };
    for (const { kind, count, origin } of this.left.values()) {
      out[kind] += count;
      const s = count === 1 ? '' : 's';
      if (kind === 'states') out.reasons.push(`${count} state key${s} come from ${origin}`);
      else if (kind === 'transitions') out.reasons.push(`${count} transition${s} depend on ${origin}`);
      else out.reasons.push(`${count} part${s} of unknown size come from ${origin}`);
    }
    return out;
  }
}
