import type { Schema } from './read-schema.ts';

/** The pieces of the generated file, written as the CLI writes them (server/gen-types.ts puts them together). */

export const NEVER = '{\n[_ in never]: never\n}';

const SCALARS: Record<string, string> = {
  bool: 'boolean',
  int2: 'number',
  int4: 'number',
  int8: 'number',
  float4: 'number',
  float8: 'number',
  numeric: 'number',
  json: 'Json',
  jsonb: 'Json',
  void: 'undefined',
  record: 'Record<string, unknown>',
};

/** A PostgreSQL type (`schema.name`, `[]` for arrays) as the CLI writes it. */
export function tsType(type: string, schemas: Map<string, Schema>): string {
  if (type.endsWith('[]')) return `${tsType(type.slice(0, -2), schemas)}[]`;
  const [schema, name] = type.split('.') as [string, string];
  if (schemas.get(schema)?.enums.has(name))
    return `Database[${JSON.stringify(schema)}]["Enums"][${JSON.stringify(name)}]`;
  return SCALARS[name] ?? (schema === 'pg_catalog' || schema === 'extensions' ? 'string' : 'unknown');
}

export function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** One schema's `Tables`/`Views`/`Functions`/`Enums`/`CompositeTypes`, as the CLI writes them. */
export function schemaBlock(schema: Schema, schemas: Map<string, Schema>): string[] {
  const out: string[] = [`${key(schema.name)}: {`];
  const section = (title: string, kinds: string[], writable: boolean) => {
    const chosen = schema.relations.filter((r) => kinds.includes(r.kind)).sort(byName);
    if (chosen.length === 0) {
      out.push(`${title}: ${NEVER}`);
      return;
    }
    out.push(`${title}: {`);
    for (const rel of chosen) {
      const cols = schema.columns.filter((c) => c.table === rel.name);
      out.push(`${key(rel.name)}: {`, 'Row: {');
      for (const c of cols) out.push(`${key(c.name)}: ${tsType(c.type, schemas)}${c.nullable ? ' | null' : ''}`);
      out.push('}');
      if (writable) {
        for (const kind of ['Insert', 'Update'] as const) {
          out.push(`${kind}: {`);
          for (const c of cols) {
            const never = c.generated || c.identityAlways;
            const optional = kind === 'Update' || never || c.nullable || c.hasDefault;
            out.push(
              `${key(c.name)}${optional ? '?' : ''}: ${never ? 'never' : `${tsType(c.type, schemas)}${c.nullable ? ' | null' : ''}`}`,
            );
          }
          out.push('}');
        }
      }
      const fks = schema.fks.filter((f) => f.table === rel.name);
      if (fks.length === 0) out.push('Relationships: []');
      else {
        out.push('Relationships: [');
        for (const fk of fks) {
          out.push(
            '{',
            `foreignKeyName: ${JSON.stringify(fk.name)}`,
            `columns: ${JSON.stringify(fk.columns).replace(/,/g, ', ')}`,
            `isOneToOne: ${String(fk.oneToOne)}`,
            `referencedRelation: ${JSON.stringify(fk.ref)}`,
            `referencedColumns: ${JSON.stringify(fk.refColumns).replace(/,/g, ', ')}`,
            '},',
          );
        }
        out.push(']');
      }
      out.push('}');
    }
    out.push('}');
  };
  section('Tables', ['r', 'p'], true);
  section('Views', ['v', 'm'], false);
  if (schema.functions.length === 0) out.push(`Functions: ${NEVER}`);
  else {
    out.push('Functions: {');
    for (const fn of [...schema.functions].sort(byName)) {
      const inputs = fn.args.filter((a) => a.mode === 'i' || a.mode === 'b' || a.mode === 'v').sort(byName);
      const outputs = fn.args.filter((a) => a.mode === 't' || a.mode === 'o' || a.mode === 'b');
      out.push(`${key(fn.name)}: {`);
      if (inputs.length === 0) out.push('Args: never');
      else {
        out.push('Args: {');
        for (const a of inputs) out.push(`${key(a.name)}${a.hasDefault ? '?' : ''}: ${tsType(a.type, schemas)}`);
        out.push('}');
      }
      const many = fn.setof ? '[]' : '';
      if (outputs.length > 0 && fn.returns === 'pg_catalog.record') {
        out.push('Returns: {');
        for (const a of outputs) out.push(`${key(a.name)}: ${tsType(a.type, schemas)}`);
        out.push(`}${many}`);
      } else if (fn.returnsRelation) {
        out.push(
          `Returns: Database[${JSON.stringify(schema.name)}]["Tables"][${JSON.stringify(fn.returnsRelation)}]["Row"]${many}`,
        );
      } else {
        out.push(`Returns: ${tsType(fn.returns, schemas)}${many}`);
      }
      out.push('}');
    }
    out.push('}');
  }
  if (schema.enums.size === 0) out.push(`Enums: ${NEVER}`);
  else {
    out.push('Enums: {');
    for (const [name, labels] of schema.enums)
      out.push(`${key(name)}: ${labels.map((l) => JSON.stringify(l)).join(' | ')}`);
    out.push('}');
  }
  out.push(`CompositeTypes: ${NEVER}`, '}');
  return out;
}

/** The generic helpers the CLI appends: each takes a name in public, or `{ schema }` and a name. */
export function helpers(): string[] {
  const options = (param: string, pick: string) => `
  DefaultSchema${param}NameOrOptions extends
    | keyof DefaultSchema["${pick}"]
    | { schema: keyof DatabaseWithoutInternals },`;
  const helper = (
    name: string,
    param: string,
    pick: string,
    inferred: string,
    letter: string,
  ) => `export type ${name}<${options(param, pick)}
  ${param}Name extends (DefaultSchema${param}NameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchema${param}NameOrOptions["schema"]]["${pick}"]
    : never) = never,
> = DefaultSchema${param}NameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchema${param}NameOrOptions["schema"]]["${pick}"][${param}Name] extends {
      ${inferred}: infer ${letter}
    }
    ? ${letter}
    : never
  : DefaultSchema${param}NameOrOptions extends keyof DefaultSchema["${pick}"]
    ? DefaultSchema["${pick}"][DefaultSchema${param}NameOrOptions] extends {
        ${inferred}: infer ${letter}
      }
      ? ${letter}
      : never
    : never
`;
  const plain = (name: string, param: string, pick: string) => `export type ${name}<${options(param, pick)}
  ${param}Name extends (DefaultSchema${param}NameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof DatabaseWithoutInternals[DefaultSchema${param}NameOrOptions["schema"]]["${pick}"]
    : never) = never,
> = DefaultSchema${param}NameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? DatabaseWithoutInternals[DefaultSchema${param}NameOrOptions["schema"]]["${pick}"][${param}Name]
  : DefaultSchema${param}NameOrOptions extends keyof DefaultSchema["${pick}"]
    ? DefaultSchema["${pick}"][DefaultSchema${param}NameOrOptions]
    : never
`;
  const tables = `export type Tables<
  DefaultSchemaTableNameOrOptions extends
    | keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    | { schema: keyof DatabaseWithoutInternals },
  TableName extends (DefaultSchemaTableNameOrOptions extends {
    schema: keyof DatabaseWithoutInternals
  }
    ? keyof (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
        DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])
    : never) = never,
> = DefaultSchemaTableNameOrOptions extends {
  schema: keyof DatabaseWithoutInternals
}
  ? (DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Tables"] &
      DatabaseWithoutInternals[DefaultSchemaTableNameOrOptions["schema"]]["Views"])[TableName] extends {
      Row: infer R
    }
    ? R
    : never
  : DefaultSchemaTableNameOrOptions extends keyof (DefaultSchema["Tables"] & DefaultSchema["Views"])
    ? (DefaultSchema["Tables"] & DefaultSchema["Views"])[DefaultSchemaTableNameOrOptions] extends {
        Row: infer R
      }
      ? R
      : never
    : never
`;
  return [
    'type DatabaseWithoutInternals = Omit<Database, "__InternalSupabase">',
    '',
    'type DefaultSchema = DatabaseWithoutInternals[Extract<keyof Database, "public">]',
    '',
    tables,
    helper('TablesInsert', 'Table', 'Tables', 'Insert', 'I'),
    helper('TablesUpdate', 'Table', 'Tables', 'Update', 'U'),
    plain('Enums', 'Enum', 'Enums'),
    plain('CompositeTypes', 'CompositeType', 'CompositeTypes'),
  ];
}

/** Indents the generated lines by their brace depth, two spaces a level, as the CLI prints them. */
export function indent(lines: string[], base: number): string[] {
  let depth = base;
  const out: string[] = [];
  for (const text of lines.flatMap((l) => l.split('\n'))) {
    const closes = /^[}\]]/.test(text) ? 1 : 0;
    out.push(`${'  '.repeat(depth - closes)}${text}`);
    depth += (text.match(/[{[]/g) ?? []).length - (text.match(/[}\]]/g) ?? []).length;
  }
  return out;
}
