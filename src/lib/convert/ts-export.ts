import { exportXState } from '../model/export.ts';
import type { Json, JsonObject, MachineDefinition } from '../model/types.ts';
import { catalogue, guardOperands, guardRefOf } from './catalogue.ts';

/**
 * MachineDefinition -> an XState v5 TypeScript module:
 * `export const machine = setup({ actions, guards, actors, delays }).createMachine({...})`,
 * every named implementation stubbed so the file compiles and runs as it is. The config
 * is `exportXState`'s canonical form. An expression the model keeps as text (`{ $expr: source }`,
 * from a function in an imported machine) stays data: its source may name things from its
 * own file, so pasting it back as code would neither compile nor run; the header says to
 * replace each with the function it describes. Higher-order guards become `and([...])`,
 * `or([...])`, `not(...)`.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function key(k: string): string {
  return IDENTIFIER.test(k) ? k : JSON.stringify(k);
}

/** Where an action or guard stands: an inline placeholder there is printed back as its code. */
const IMPLEMENTATION_KEYS = new Set(['entry', 'exit', 'actions', 'guard']);
/** The names ts-import gives an inline function or call it keeps as a placeholder. */
const PLACEHOLDER_TYPES = new Set(['inline', 'entry', 'exit', 'actions', 'guard']);

/** `{ $expr: source }`'s source, or null. */
function expressionSource(v: Json): string | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const keys = Object.keys(v);
  return keys.length === 1 && typeof v.$expr === 'string' ? v.$expr : null;
}

/** An inline action or guard ts-import kept as a placeholder (`{ type, params: { $expr } }`): its source, or null. */
function placeholderSource(v: Json): string | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || typeof v.type !== 'string') return null;
  if (Object.keys(v).length !== 2 || v.params === undefined) return null;
  if (!PLACEHOLDER_TYPES.has(v.type) && !v.type.startsWith('xstate.')) return null;
  return expressionSource(v.params);
}

/**
 * Prints config JSON as a TypeScript expression. With `code`, text the model keeps from
 * source (`{ $expr }` and inline placeholders) goes back as the code it was: for writing
 * into the file it came from, where the names it uses are in scope.
 */
export class Printer {
  private readonly guardHelpers = new Set<string>();

  constructor(private readonly options: { code?: boolean; quote?: "'" | '"' } = {}) {}

  private string(s: string): string {
    const json = JSON.stringify(s);
    if (this.options.quote !== "'") return json;
    return `'${json.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
  }

  /** A property key: bare when it is an identifier. */
  key(k: string): string {
    return IDENTIFIER.test(k) ? k : this.string(k);
  }

  used(): string[] {
    return [...this.guardHelpers].sort();
  }

  value(v: Json, indent: string, parentKey: string): string {
    if (this.options.code) {
      const source = expressionSource(v) ?? (IMPLEMENTATION_KEYS.has(parentKey) ? placeholderSource(v) : null);
      if (source !== null) return source;
    }
    if (parentKey === 'guard') {
      const guard = this.guard(v, indent);
      if (guard !== null) return guard;
    }
    if (typeof v === 'string') return this.string(v);
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    const inner = `${indent}  `;
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[\n${v.map((x) => `${inner}${this.value(x, inner, parentKey)},`).join('\n')}\n${indent}]`;
    }
    const entries = Object.entries(v);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, x]) => `${inner}${this.key(k)}: ${this.value(x, inner, k)},`).join('\n')}\n${indent}}`;
  }

  private guard(v: Json, indent: string): string | null {
    const ref = guardRefOf(v);
    if (ref === null) return null;
    const operands = guardOperands(ref);
    if (operands === null) return null;
    const params = ref.params as JsonObject;
    if (Object.keys(params).length !== 1) return null;
    const inner = `${indent}  `;
    const list = (params.guards as Json[]).map((g) => this.value(g, inner, 'guard'));
    this.guardHelpers.add(ref.type);
    if (ref.type === 'not' && list.length === 1) return `not(${list[0]})`;
    return `${ref.type}([${list.join(', ')}])`;
  }
}

/** The TypeScript module text for a definition. */
export function exportTypeScript(def: MachineDefinition): string {
  const config = exportXState(def);
  const names = catalogue(def);
  const printer = new Printer();
  const body = printer.value(config, '', '');
  const lines: string[] = [];
  const section = (name: string, list: string[], stub: (n: string) => string): void => {
    if (list.length === 0) return;
    lines.push(`  ${name}: {`);
    for (const n of list) lines.push(`    ${key(n)}: ${stub(n)},`);
    lines.push('  },');
  };
  section('actions', names.actions, () => '() => {}');
  section('guards', names.guards, () => '() => false');
  section('actors', names.actors, () => 'fromCallback(() => {})');
  section('delays', names.delays, () => '1000');
  const imports = ['setup', ...(names.actors.length > 0 ? ['fromCallback'] : []), ...printer.used()].sort();
  const title = def.name || def.machineId || 'machine';
  return [
    `// ${title.replace(/[\r\n]+/g, ' ')}: exported from Chartroom. The implementations in setup() are stubs to fill in.`,
    ...(body.includes('$expr')
      ? ['// Each { $expr: "..." } is a function kept as its source text: replace it with the function it describes.']
      : []),
    `import { ${imports.join(', ')} } from 'xstate';`,
    '',
    `export const machine = setup({`,
    ...lines,
    `}).createMachine(${body});`,
    '',
  ].join('\n');
}
