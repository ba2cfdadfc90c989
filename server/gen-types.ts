/**
 * `npm run gen:types`: writes src/adapters/supabase/database.types.ts from the schema
 * the migrations build, in the shape `supabase gen types typescript` produces (`type
 * Database` with graphql_public and public, Tables with Row/Insert/Update/Relationships,
 * Views, Functions, Enums, CompositeTypes, `{ [_ in never]: never }` for empty maps, the
 * generic helpers and Constants), so the typed client works the same against the
 * embedded backend and hosted Supabase.
 *
 * It starts a throwaway backend on a scratch data directory, so it never depends on a
 * running instance: the types always match supabase/migrations.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startBackend } from './backend.ts';

interface Column {
  table: string;
  name: string;
  type: string;
  nullable: boolean;
  hasDefault: boolean;
  generated: boolean;
  identityAlways: boolean;
}

interface Relation {
  name: string;
  kind: string;
}

interface ForeignKey {
  name: string;
  table: string;
  columns: string[];
  ref: string;
  refColumns: string[];
  oneToOne: boolean;
}

interface Argument {
  name: string;
  type: string;
  mode: string;
  hasDefault: boolean;
}

interface Fn {
  name: string;
  args: Argument[];
  returns: string;
  returnsRelation: string | null;
  setof: boolean;
}

interface Schema {
  name: string;
  relations: Relation[];
  columns: Column[];
  fks: ForeignKey[];
  functions: Fn[];
  enums: Map<string, string[]>;
}

/** The PostgREST version the embedded REST API follows (server/rest): postgrest-js reads it from the types. */
const POSTGREST_VERSION = '12';
/** The schemas `supabase gen types typescript` writes by default: the API's, sorted. */
const SCHEMAS = ['graphql_public', 'public'];
const NEVER = '{\n[_ in never]: never\n}';

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
function tsType(type: string, schemas: Map<string, Schema>): string {
  if (type.endsWith('[]')) return `${tsType(type.slice(0, -2), schemas)}[]`;
  const [schema, name] = type.split('.') as [string, string];
  if (schemas.get(schema)?.enums.has(name))
    return `Database[${JSON.stringify(schema)}]["Enums"][${JSON.stringify(name)}]`;
  return SCALARS[name] ?? (schema === 'pg_catalog' || schema === 'extensions' ? 'string' : 'unknown');
}

function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

async function readSchema(db: pg.Client, name: string): Promise<Schema> {
  const enums = new Map<string, string[]>();
  const enumRows = await db.query<{ name: string; labels: string[] }>(
    `select t.typname as name, array_agg(e.enumlabel order by e.enumsortorder)::text[] as labels
       from pg_type t join pg_enum e on e.enumtypid = t.oid
      where t.typnamespace = $1::regnamespace group by t.typname order by t.typname`,
    [name],
  );
  for (const row of enumRows.rows) enums.set(row.name, row.labels);
  const relations = (
    await db.query<Relation>(
      `select c.relname as name, c.relkind as kind from pg_class c
        where c.relnamespace = $1::regnamespace and c.relkind in ('r', 'p', 'v', 'm') and not c.relispartition
        order by c.relname`,
      [name],
    )
  ).rows;
  const columns = (
    await db.query<Column>(
      `select c.relname as "table", a.attname as name,
              tn.nspname || '.' || coalesce(et.typname, t.typname) || case when et.oid is null then '' else '[]' end as type,
              not a.attnotnull as nullable, a.atthasdef or a.attidentity = 'd' as "hasDefault",
              a.attgenerated <> '' as generated, a.attidentity = 'a' as "identityAlways"
         from pg_attribute a
         join pg_class c on c.oid = a.attrelid
         join pg_type t on t.oid = a.atttypid
         left join pg_type et on et.oid = t.typelem and t.typcategory = 'A'
         join pg_namespace tn on tn.oid = coalesce(et.typnamespace, t.typnamespace)
        where c.relnamespace = $1::regnamespace and a.attnum > 0 and not a.attisdropped
        order by c.relname, a.attname`,
      [name],
    )
  ).rows;
  const fks = (
    await db.query<ForeignKey>(
      `select con.conname as name, src.relname as "table",
              array(select a.attname::text from unnest(con.conkey) k join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k) as columns,
              dst.relname as ref,
              array(select a.attname::text from unnest(con.confkey) k join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k) as "refColumns",
              exists (select 1 from pg_index i where i.indrelid = con.conrelid and i.indisunique
                        and (i.indkey::int2[])::int2[] @> con.conkey and array_length(i.indkey::int2[], 1) = array_length(con.conkey, 1)) as "oneToOne"
         from pg_constraint con
         join pg_class src on src.oid = con.conrelid
         join pg_class dst on dst.oid = con.confrelid
        where con.contype = 'f' and src.relnamespace = $1::regnamespace and dst.relnamespace = $1::regnamespace
        order by src.relname, con.conname`,
      [name],
    )
  ).rows;
  const fnRows = await db.query<{
    name: string;
    argNames: string[] | null;
    argTypes: string[];
    argModes: string[] | null;
    defaults: number;
    inputs: number;
    returns: string;
    returnsRelation: string | null;
    setof: boolean;
  }>(
    `select p.proname as name, p.proargnames::text[] as "argNames",
            array(select tn.nspname || '.' || coalesce(et.typname, t.typname) || case when et.oid is null then '' else '[]' end
                    from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) with ordinality a(oid, n)
                    join pg_type t on t.oid = a.oid
                    left join pg_type et on et.oid = t.typelem and t.typcategory = 'A'
                    join pg_namespace tn on tn.oid = coalesce(et.typnamespace, t.typnamespace)
                   order by a.n)::text[] as "argTypes",
            p.proargmodes::text[] as "argModes", p.pronargdefaults as defaults, p.pronargs as inputs,
            rn.nspname || '.' || rt.typname as returns,
            case when rc.relnamespace = p.pronamespace then rc.relname::text end as "returnsRelation",
            p.proretset as setof
       from pg_proc p
       join pg_type rt on rt.oid = p.prorettype
       join pg_namespace rn on rn.oid = rt.typnamespace
       left join pg_class rc on rc.oid = rt.typrelid
      where p.pronamespace = $1::regnamespace and p.prokind = 'f'
        and rt.typname not in ('trigger', 'event_trigger')
      order by p.proname, p.oid`,
    [name],
  );
  const functions = fnRows.rows.map((f) => {
    let inputIndex = 0;
    const args = f.argTypes.map((type, i) => {
      const mode = f.argModes?.[i] ?? 'i';
      const isInput = mode === 'i' || mode === 'b' || mode === 'v';
      const position = isInput ? inputIndex++ : -1;
      return { name: f.argNames?.[i] ?? '', type, mode, hasDefault: isInput && position >= f.inputs - f.defaults };
    });
    return { name: f.name, args, returns: f.returns, returnsRelation: f.returnsRelation, setof: f.setof };
  });
  return { name, relations, columns, fks, functions, enums };
}

/** One schema's `Tables`/`Views`/`Functions`/`Enums`/`CompositeTypes`, as the CLI writes them. */
function schemaBlock(schema: Schema, schemas: Map<string, Schema>): string[] {
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
function helpers(): string[] {
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
function indent(lines: string[], base: number): string[] {
  let depth = base;
  const out: string[] = [];
  for (const text of lines.flatMap((l) => l.split('\n'))) {
    const closes = /^[}\]]/.test(text) ? 1 : 0;
    out.push(`${'  '.repeat(depth - closes)}${text}`);
    depth += (text.match(/[{[]/g) ?? []).length - (text.match(/[}\]]/g) ?? []).length;
  }
  return out;
}

/**
 * The TypeScript `supabase gen types typescript` writes for the schemas the migrations
 * built: `type Database` with graphql_public and public, the Tables/TablesInsert/
 * TablesUpdate/Enums/CompositeTypes helpers taking a name or `{ schema }`, and Constants.
 */
export async function generate(db: pg.Client): Promise<string> {
  const schemas = new Map<string, Schema>();
  for (const name of SCHEMAS) schemas.set(name, await readSchema(db, name));
  const body: string[] = [
    '// Allows to automatically instantiate createClient with right options',
    "// instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)",
    '__InternalSupabase: {',
    `PostgrestVersion: ${JSON.stringify(POSTGREST_VERSION)}`,
    '}',
  ];
  for (const schema of schemas.values()) body.push(...schemaBlock(schema, schemas));
  const constants: string[] = [];
  for (const schema of schemas.values()) {
    if (schema.enums.size === 0) constants.push(`${key(schema.name)}: {`, 'Enums: {},', '},');
    else {
      constants.push(`${key(schema.name)}: {`, 'Enums: {');
      for (const [name, labels] of schema.enums)
        constants.push(`${key(name)}: [${labels.map((l) => JSON.stringify(l)).join(', ')}],`);
      constants.push('},', '},');
    }
  }
  return [
    '// Generated by `npm run gen:types` from supabase/migrations, in the shape of',
    '// `supabase gen types typescript`. Do not edit.',
    '// The helpers name `keyof` of maps that may be empty (never), as the CLI writes them.',
    '/* eslint-disable @typescript-eslint/no-redundant-type-constituents */',
    'export type Json =',
    '  | string',
    '  | number',
    '  | boolean',
    '  | null',
    '  | { [key: string]: Json | undefined }',
    '  | Json[]',
    '',
    'export type Database = {',
    ...indent(body, 1),
    '}',
    '',
    ...helpers(),
    'export const Constants = {',
    ...indent(constants, 1),
    '} as const',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const target = path.resolve(process.argv[2] ?? 'src/adapters/supabase/database.types.ts');
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'chartroom-types-'));
  const { freePort } = await import('../tests/setup/ports.ts');
  const backend = await startBackend({
    port: 0,
    dbPort: await freePort(),
    dataDir,
    logRequests: false,
    log: () => undefined,
  });
  const db = new pg.Client({ connectionString: backend.databaseUrl });
  try {
    await db.connect();
    await fs.writeFile(target, await generate(db));
    console.log(`wrote ${path.relative(process.cwd(), target)}`);
  } finally {
    await db.end();
    await backend.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
