import type pg from 'pg';

/** What `npm run gen:types` reads from the catalog for one schema (server/gen-types.ts writes it out). */

export interface Column {
  table: string;
  name: string;
  type: string;
  nullable: boolean;
  hasDefault: boolean;
  generated: boolean;
  identityAlways: boolean;
}

export interface Relation {
  name: string;
  kind: string;
}

export interface ForeignKey {
  name: string;
  table: string;
  columns: string[];
  ref: string;
  refColumns: string[];
  oneToOne: boolean;
}

export interface Argument {
  name: string;
  type: string;
  mode: string;
  hasDefault: boolean;
}

export interface Fn {
  name: string;
  args: Argument[];
  returns: string;
  returnsRelation: string | null;
  setof: boolean;
}

export interface Schema {
  name: string;
  relations: Relation[];
  columns: Column[];
  fks: ForeignKey[];
  functions: Fn[];
  enums: Map<string, string[]>;
}

/** One schema's enums, tables and views with their columns and foreign keys, and functions. */
export async function readSchema(db: pg.Client, name: string): Promise<Schema> {
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
