import { describe, expect, it } from 'vitest';
import { RestError } from '../../../server/rest/errors.ts';
import { parseQuery } from '../../../server/rest/parse/query.ts';
import { parsePrefer } from '../../../server/rest/parse/headers.ts';
import { chooseFunction } from '../../../server/rest/plan/call.ts';
import { readSql, resolveRead } from '../../../server/rest/plan/read.ts';
import { findRelationship } from '../../../server/rest/plan/relationships.ts';
import { SqlBuilder } from '../../../server/rest/plan/sql.ts';
import { planWrite } from '../../../server/rest/plan/write.ts';
import { tableKey, type Column, type DbFunction, type SchemaCache, type Table } from '../../../server/rest/schema.ts';

function column(name: string, type = 'text'): Column {
  return {
    name,
    type,
    udt: type,
    isArray: type.endsWith('[]'),
    isRange: false,
    nullable: true,
    hasDefault: false,
    defaultExpr: null,
  };
}
function table(name: string, cols: string[], pk: string[] = ['id']): Table {
  return {
    schema: 'public',
    name,
    kind: 'table',
    columns: new Map(cols.map((c) => [c, column(c)])),
    columnOrder: cols,
    primaryKey: pk,
    computed: new Map(),
  };
}
function fn(name: string, params: [string, string, boolean?][]): DbFunction {
  return {
    schema: 'public',
    name,
    oid: 1,
    params: params.map(([n, t, d]) => ({ name: n, type: t, hasDefault: d ?? false, variadic: false })),
    returnType: 'integer',
    returnsSet: false,
    returnKind: 'scalar',
    returnColumns: [],
    returnTable: null,
    volatility: 'volatile',
    rows: 0,
    argTable: null,
  };
}

const tables = [
  table('authors', ['id', 'name', 'data']),
  table('books', ['id', 'title', 'author_id', 'editor_id']),
  table('tags', ['id', 'label']),
  table('book_tags', ['book_id', 'tag_id'], ['book_id', 'tag_id']),
];
const cache: SchemaCache = {
  version: 1,
  schemas: ['public'],
  tables: new Map(tables.map((t) => [tableKey('public', t.name), t])),
  foreignKeys: [
    {
      name: 'books_author_fk',
      schema: 'public',
      table: 'books',
      columns: ['author_id'],
      foreignSchema: 'public',
      foreignTable: 'authors',
      foreignColumns: ['id'],
    },
    {
      name: 'books_editor_fk',
      schema: 'public',
      table: 'books',
      columns: ['editor_id'],
      foreignSchema: 'public',
      foreignTable: 'authors',
      foreignColumns: ['id'],
    },
    {
      name: 'bt_book',
      schema: 'public',
      table: 'book_tags',
      columns: ['book_id'],
      foreignSchema: 'public',
      foreignTable: 'books',
      foreignColumns: ['id'],
    },
    {
      name: 'bt_tag',
      schema: 'public',
      table: 'book_tags',
      columns: ['tag_id'],
      foreignSchema: 'public',
      foreignTable: 'tags',
      foreignColumns: ['id'],
    },
  ],
  functions: new Map([
    [
      tableKey('public', 'f'),
      [
        fn('f', [['a', 'integer']]),
        fn('f', [['a', 'text']]),
        fn('f', [
          ['a', 'integer'],
          ['b', 'integer', true],
        ]),
      ],
    ],
  ]),
  types: new Map([
    ['text', { schema: 'pg_catalog', name: 'text' }],
    ['integer', { schema: 'pg_catalog', name: 'int4' }],
  ]),
  roleTimeouts: new Map(),
  planEnabled: false,
};
const t = (name: string) => cache.tables.get(tableKey('public', name))!;

function read(tableName: string, qs: string) {
  const { query } = parseQuery(new URLSearchParams(qs));
  const b = new SqlBuilder();
  const sql = readSql(cache, resolveRead(cache, t(tableName), query.select, query.levels), b, {
    limit: 100,
    offset: null,
  });
  return { ...sql, values: b.values };
}

function failure(f: () => unknown): RestError {
  try {
    f();
  } catch (error) {
    if (error instanceof RestError) return error;
    throw error;
  }
  throw new Error('expected a RestError');
}

describe('read planner', () => {
  it('binds every value and quotes only known identifiers', () => {
    const { rows, values } = read(
      'authors',
      `select=id,n:name,data->>k::text&name=eq.x'); drop table authors; --&id=in.(1,2)`,
    );
    expect(rows).toBe(
      `select "authors"."id" as "id", "authors"."name" as "n", ("authors"."data"->>$3::text)::"pg_catalog"."text" as "k" ` +
        `from "public"."authors" as "authors" where ("authors"."name" = $1) and ("authors"."id" = any($2)) limit $4::bigint`,
    );
    expect(values).toEqual(["x'); drop table authors; --", ['1', '2'], 'k', 100]);
  });

  it('embeds to-one as row_to_json, to-many as json_agg, many-to-many through the junction', () => {
    const { rows } = read(
      'books',
      'select=title,author:authors!author_id(name),tags(label)&tags.order=label&tags.limit=2',
    );
    expect(rows).toContain(
      'left join lateral (select row_to_json("authors_1_r") as j from (select "authors_1"."name" as "name" from "public"."authors" as "authors_1" where ("authors_1"."id" = "books"."author_id") limit $1::bigint) as "authors_1_r") as "authors_1_j" on true',
    );
    expect(rows).toContain(
      'join "public"."book_tags" as "tags_2_x" on "tags_2_x"."tag_id" = "tags_2"."id" where ("tags_2_x"."book_id" = "books"."id") order by "tags_2"."label" limit $2::bigint',
    );
    expect(rows).toContain(`coalesce("tags_2_j".j, '[]'::json) as "tags"`);
  });

  it('turns !inner and embed=is.null into conditions on the parent', () => {
    expect(read('authors', 'select=id,books!author_id!inner(id)').rows).toContain('where ("books_1_j".j is not null)');
    expect(read('authors', 'select=id,books!author_id(id)&books=is.null').rows).toContain(
      'where ("books_1_j".j is null)',
    );
    expect(failure(() => read('authors', 'select=id,books!author_id(id)&books=eq.1')).code).toBe('PGRST120');
  });

  it('reports unknown columns, casts, relationships and embed paths', () => {
    expect(failure(() => read('authors', 'select=nope')).body()).toEqual({
      code: '42703',
      details: null,
      hint: null,
      message: 'column authors.nope does not exist',
    });
    expect(failure(() => read('authors', 'order=nope')).code).toBe('42703');
    expect(failure(() => read('authors', 'select=id::made_up')).code).toBe('PGRST100');
    expect(failure(() => read('tags', 'select=authors(*)')).code).toBe('PGRST200');
    const ambiguous = failure(() => read('books', 'select=authors(*)'));
    expect(ambiguous.status).toBe(300);
    expect(ambiguous.hint).toBe(
      "Try changing 'authors' to one of the following: 'authors!books_author_fk', 'authors!books_editor_fk'. Find the desired relationship in the 'details' key.",
    );
    expect(failure(() => read('authors', 'select=id&books.id=eq.1')).body()).toMatchObject({
      code: 'PGRST108',
      message: "'books' is not an embedded resource in this request",
    });
  });

  it('finds relationships by table, constraint, column and hint', () => {
    expect(findRelationship(cache, t('books'), 'books_editor_fk', null)).toMatchObject({
      kind: 'many-to-one',
      fk: { name: 'books_editor_fk' },
    });
    expect(findRelationship(cache, t('books'), 'editor_id', null)).toMatchObject({
      kind: 'many-to-one',
      fk: { name: 'books_editor_fk' },
    });
    expect(findRelationship(cache, t('authors'), 'books', 'editor_id')).toMatchObject({
      kind: 'one-to-many',
      fk: { name: 'books_editor_fk' },
    });
    expect(findRelationship(cache, t('tags'), 'books', null)).toMatchObject({
      kind: 'many-to-many',
      junction: { name: 'book_tags' },
    });
  });
});

describe('write planner', () => {
  const plan = (method: 'POST' | 'PATCH' | 'DELETE', qs: string, body: unknown, prefer = '') =>
    planWrite(cache, t('authors'), method, body, parseQuery(new URLSearchParams(qs)).query, parsePrefer(prefer), 1000);

  it('inserts through json_populate_recordset with the payload as one parameter', () => {
    const p = plan('POST', '', [{ name: 'a' }, { name: 'b' }]);
    expect(p.statements[0]).toEqual({
      sql: 'insert into "public"."authors" as "authors" ("name") select _r."name" from json_populate_recordset(null::"public"."authors", $1::json) as _r',
      values: ['[{"name":"a"},{"name":"b"}]'],
    });
  });

  it('upserts on the primary key or on_conflict, and updates with filters', () => {
    expect(plan('POST', 'on_conflict=name', { name: 'a' }, 'resolution=merge-duplicates').statements[0]?.sql).toContain(
      'on conflict ("name") do update set "name" = excluded."name"',
    );
    expect(plan('POST', '', { id: 1 }, 'resolution=ignore-duplicates').statements[0]?.sql).toContain(
      'on conflict ("id") do nothing',
    );
    const update = plan('PATCH', 'id=eq.1', { name: 'z' }, 'return=representation');
    expect(update.statements[0]?.sql).toContain(
      'update "public"."authors" as "authors" set "name" = pgrst_body."name" from json_populate_record(null::"public"."authors", $1::json) as pgrst_body where ("authors"."id" = $2) returning "authors".*',
    );
  });

  it('refuses unknown payload columns and mismatched keys', () => {
    expect(failure(() => plan('POST', '', { nope: 1 })).body()).toMatchObject({
      code: 'PGRST204',
      message: "Could not find the 'nope' column of 'authors' in the schema cache",
    });
    expect(failure(() => plan('POST', '', [{ name: 'a' }, { id: 1 }])).code).toBe('PGRST102');
    expect(failure(() => plan('POST', 'columns=nope', [{ name: 'a' }])).code).toBe('PGRST204');
    expect(failure(() => plan('PATCH', '', [1])).code).toBe('PGRST102');
  });
});

describe('function resolution', () => {
  it('picks overloads by argument names and reports PGRST202/203', () => {
    expect(chooseFunction(cache, 'public', 'f', ['a', 'b'], false, true).params).toHaveLength(2);
    const ambiguous = failure(() => chooseFunction(cache, 'public', 'f', ['a'], false, true));
    expect(ambiguous.body()).toMatchObject({
      code: 'PGRST203',
      message:
        'Could not choose the best candidate function between: public.f(a => integer), public.f(a => text), public.f(a => integer, b => integer)',
    });
    const missing = failure(() => chooseFunction(cache, 'public', 'g', [], false, false));
    expect(missing.body()).toEqual({
      code: 'PGRST202',
      message: 'Could not find the function public.g without parameters in the schema cache',
      details: 'Searched for the function public.g without parameters, but no matches were found in the schema cache.',
      hint: null,
    });
  });
});
