import { RestError } from '../errors.ts';
import { tableKey, type DbFunction, type ForeignKey, type SchemaCache, type Table } from '../schema.ts';

/** How an embedded table hangs off its parent. */
export type Relationship =
  | { kind: 'many-to-one'; fk: ForeignKey; target: Table }
  | { kind: 'one-to-many'; fk: ForeignKey; target: Table }
  | { kind: 'many-to-many'; source: ForeignKey; sink: ForeignKey; junction: Table; target: Table }
  /** A function of the parent's row returning a table's rows (PostgREST's computed relationship). */
  | { kind: 'computed'; fn: DbFunction; target: Table };

function sameTable(fk: ForeignKey, t: Table): boolean {
  return fk.schema === t.schema && fk.table === t.name;
}
function sameForeign(fk: ForeignKey, t: Table): boolean {
  return fk.foreignSchema === t.schema && fk.foreignTable === t.name;
}

/** Every relationship from `parent` to any table, for lookups by name, column or constraint. */
function candidates(cache: SchemaCache, parent: Table): Relationship[] {
  const rels: Relationship[] = [];
  for (const fk of cache.foreignKeys) {
    if (sameTable(fk, parent)) {
      const target = cache.tables.get(tableKey(fk.foreignSchema, fk.foreignTable));
      if (target) rels.push({ kind: 'many-to-one', fk, target });
    }
    if (sameForeign(fk, parent)) {
      const target = cache.tables.get(tableKey(fk.schema, fk.table));
      if (target) rels.push({ kind: 'one-to-many', fk, target });
    }
  }
  // Junctions: a table with one foreign key to the parent and another to the target,
  // both made of columns in the junction's primary key (PostgREST's rule).
  for (const source of cache.foreignKeys) {
    if (!sameForeign(source, parent)) continue;
    const junction = cache.tables.get(tableKey(source.schema, source.table));
    if (!junction) continue;
    const inPk = (fk: ForeignKey) => fk.columns.every((c) => junction.primaryKey.includes(c));
    if (!inPk(source)) continue;
    for (const sink of cache.foreignKeys) {
      if (sink === source || !sameTable(sink, junction) || !inPk(sink)) continue;
      const target = cache.tables.get(tableKey(sink.foreignSchema, sink.foreignTable));
      if (target) rels.push({ kind: 'many-to-many', source, sink, junction, target });
    }
  }
  return rels;
}

function describe(r: Relationship, parent: Table): { cardinality: string; embedding: string; relationship: string } {
  const cols = (c: string[]) => `(${c.join(', ')})`;
  if (r.kind === 'computed') {
    return {
      cardinality: isToOne(r) ? 'many-to-one' : 'one-to-many',
      embedding: `${parent.name} with ${r.target.name}`,
      relationship: `${r.fn.schema}.${r.fn.name}`,
    };
  }
  if (r.kind === 'many-to-many') {
    return {
      cardinality: 'many-to-many',
      embedding: `${parent.name} with ${r.target.name}`,
      relationship: `${r.junction.name} using ${r.source.name}${cols(r.source.columns)} and ${r.sink.name}${cols(r.sink.columns)}`,
    };
  }
  const [from, to] =
    r.kind === 'many-to-one' ? [r.fk.columns, r.fk.foreignColumns] : [r.fk.foreignColumns, r.fk.columns];
  return {
    cardinality: r.kind,
    embedding: `${parent.name} with ${r.target.name}`,
    relationship: `${r.fk.name} using ${parent.name}${cols(from)} and ${r.target.name}${cols(to)}`,
  };
}

function hintName(r: Relationship): string {
  if (r.kind === 'computed') return r.fn.name;
  return r.kind === 'many-to-many' ? r.junction.name : r.fk.name;
}

/**
 * Finds the one relationship `name` (optionally `!hint`) means from `parent`: by target
 * table name, foreign key constraint name or foreign key column. PGRST200 when none,
 * PGRST201 when several remain.
 */
export function findRelationship(cache: SchemaCache, parent: Table, name: string, hint: string | null): Relationship {
  const fn = parent.computed.get(name)?.find((f) => f.returnTable !== null);
  const fnTarget = fn?.returnTable ? cache.tables.get(fn.returnTable) : undefined;
  if (fn && fnTarget && hint === null) return { kind: 'computed', fn, target: fnTarget };
  const all = candidates(cache, parent);
  const fkOf = (r: Relationship) => (r.kind === 'many-to-many' || r.kind === 'computed' ? null : r.fk);
  let matches = all.filter((r) => r.target.name === name && r.target.schema === parent.schema);
  // `table(*)` on its own table means its children (PostgREST): the parent is `fk_column(*)`.
  if (name === parent.name) matches = matches.filter((r) => !(r.kind === 'many-to-one' && r.target === parent));
  if (matches.length === 0) {
    // `fk_name(*)` or `fk_column(*)` name the relationship itself (to-one through a column);
    // the base table's key wins over its copies on views.
    const named = all.filter((r) => {
      const fk = fkOf(r);
      if (!fk) return false;
      if (fk.name === name) return true;
      return r.kind === 'many-to-one' && fk.columns.length === 1 && fk.columns[0] === name;
    });
    const direct = named.filter((r) => !fkOf(r)?.viaView);
    matches = direct.length > 0 ? direct : named;
  }
  if (hint !== null) {
    // A column hint names the parent's side first, and the target's side only when the
    // parent's side has no match.
    const parentSide = (r: Relationship) =>
      r.kind === 'many-to-one' ? r.fk.columns : r.kind === 'one-to-many' ? r.fk.foreignColumns : [];
    const targetSide = (r: Relationship) =>
      r.kind === 'many-to-one' ? r.fk.foreignColumns : r.kind === 'one-to-many' ? r.fk.columns : [];
    const byName = (r: Relationship) =>
      r.kind === 'computed'
        ? false
        : r.kind === 'many-to-many'
          ? r.junction.name === hint || r.source.name === hint || r.sink.name === hint
          : r.fk.name === hint;
    // On a self reference the name means the children; a hint names their column, never a constraint.
    const self = matches.length > 0 && matches.every((r) => r.target === parent && r.kind === 'one-to-many');
    const named = self
      ? matches.filter((r) => targetSide(r).includes(hint))
      : matches.filter((r) => byName(r) || parentSide(r).includes(hint));
    matches = named.length > 0 || self ? named : matches.filter((r) => targetSide(r).includes(hint));
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new RestError(
      400,
      'PGRST200',
      `Could not find a relationship between '${parent.name}' and '${name}' in the schema cache`,
      `Searched for a foreign key relationship between '${parent.name}' and '${name}'${hint ? ` using the hint '${hint}'` : ''} in the schema '${parent.schema}', but no matches were found.`,
    );
  }
  const hints = matches.map((r) => `'${name}!${hintName(r)}'`).join(', ');
  throw new RestError(
    300,
    'PGRST201',
    `Could not embed because more than one relationship was found for '${parent.name}' and '${name}'`,
    matches.map((r) => describe(r, parent)),
    `Try changing '${name}' to one of the following: ${hints}. Find the desired relationship in the 'details' key.`,
  );
}

/** Many-to-one, or one-to-many whose foreign key is the child's whole primary key (one-to-one). */
export function isToOne(r: Relationship): boolean {
  if (r.kind === 'many-to-one') return true;
  if (r.kind === 'computed') return !r.fn.returnsSet || r.fn.rows === 1;
  if (r.kind === 'one-to-many') {
    const pk = r.target.primaryKey;
    return pk.length > 0 && pk.length === r.fk.columns.length && r.fk.columns.every((c) => pk.includes(c));
  }
  return false;
}
