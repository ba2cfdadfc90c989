import type pg from 'pg';
import { kindOfBuiltin, type TypeInfo } from './values.ts';

interface TypeRow {
  oid: number;
  typname: string;
  cast_name: string;
  typtype: string;
  typelem: number;
  typbasetype: number;
  typcategory: string;
}

/**
 * Type and primary-key facts the decoder needs that pgoutput does not carry: pgoutput
 * gives type OIDs, hosted reports `typname`s, and the RLS check needs the real primary
 * key (with replica identity full every column is flagged as key).
 */
export class Catalog {
  private readonly types = new Map<number, TypeInfo>();

  constructor(private readonly pool: pg.Pool) {}

  type(oid: number): TypeInfo | undefined {
    return this.types.get(oid);
  }

  /** Loads every type in `oids` (and the element/base types they refer to) into the cache. */
  async resolveTypes(oids: number[]): Promise<void> {
    const rows = new Map<number, TypeRow>();
    let missing = [...new Set(oids)].filter((oid) => !this.types.has(oid));
    while (missing.length > 0) {
      const result = await this.pool.query<TypeRow>(
        `select t.oid::int as oid, t.typname::text as typname, format_type(t.oid, null) as cast_name,
                t.typtype::text as typtype, t.typelem::int as typelem, t.typbasetype::int as typbasetype,
                t.typcategory::text as typcategory
           from pg_type t where t.oid = any($1::oid[])`,
        [missing],
      );
      const next: number[] = [];
      for (const row of result.rows) {
        rows.set(row.oid, row);
        for (const ref of [row.typelem, row.typbasetype]) {
          if (ref !== 0 && !rows.has(ref) && !this.types.has(ref)) next.push(ref);
        }
      }
      missing = [...new Set(next)];
    }
    const build = (oid: number, depth = 0): TypeInfo | undefined => {
      const cached = this.types.get(oid);
      if (cached) return cached;
      const row = rows.get(oid);
      if (!row || depth > 8) return undefined;
      let info: TypeInfo;
      if (row.typtype === 'd' && row.typbasetype !== 0) {
        // A domain reads like its base type but keeps its own name, as hosted reports it.
        const base = build(row.typbasetype, depth + 1);
        info = { oid, name: row.typname, castName: row.cast_name, kind: base?.kind ?? 'string' };
        if (base?.element) info.element = base.element;
      } else if (row.typcategory === 'A' && row.typelem !== 0) {
        info = { oid, name: row.typname, castName: row.cast_name, kind: 'string' };
        const element = build(row.typelem, depth + 1);
        if (element) info.element = element;
      } else {
        info = { oid, name: row.typname, castName: row.cast_name, kind: kindOfBuiltin(oid, row.typtype) };
      }
      this.types.set(oid, info);
      return info;
    };
    for (const oid of rows.keys()) build(oid);
  }

  /** The table's primary key columns in key order (empty when it has none). */
  async primaryKey(relationOid: number): Promise<string[]> {
    const result = await this.pool.query<{ attname: string }>(
      `select a.attname::text as attname
         from pg_index i
         join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey::int2[])
        where i.indrelid = $1::oid and i.indisprimary
        order by array_position(i.indkey::int2[], a.attnum)`,
      [relationOid],
    );
    return result.rows.map((r) => r.attname);
  }
}
