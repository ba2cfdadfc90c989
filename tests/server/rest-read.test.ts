import { beforeAll, describe, expect, it } from 'vitest';
import { anonClient } from '../setup/clients.ts';
import { arrange, json, rest } from './rest/helpers.ts';

const SETUP = `
create table if not exists public.rr_authors (id int primary key, name text not null, data jsonb, born date);
create table if not exists public.rr_books (id int primary key, title text not null, author_id int references public.rr_authors(id),
  tags text[], price numeric, pages int);
create table if not exists public.rr_tags (id int primary key, label text);
create table if not exists public.rr_book_tags (book_id int references public.rr_books(id), tag_id int references public.rr_tags(id),
  primary key (book_id, tag_id));
create table if not exists public.rr_people (id int primary key, name text, parent_id int references public.rr_people(id));
create table if not exists public.rr_reviews (id int primary key, book_id int references public.rr_books(id),
  reviewer_id int constraint rr_reviews_reviewer_fk references public.rr_people(id),
  editor_id int constraint rr_reviews_editor_fk references public.rr_people(id), stars int);
create table if not exists public.rr_ranges (id int primary key, during int4range, nums int[]);
truncate public.rr_book_tags, public.rr_reviews, public.rr_books, public.rr_tags, public.rr_people, public.rr_ranges, public.rr_authors cascade;
insert into public.rr_authors values (1, 'Ann', '{"a":{"b":"deep"},"n":5}', '1970-01-02'), (2, 'Bob', null, null), (3, 'Cy', '{"n":7}', '1990-05-06');
insert into public.rr_books values
  (1, 'The quick brown fox', 1, '{red,blue}', 10.5, 100),
  (2, 'Lazy dogs sleep', 1, '{blue}', 20, 200),
  (3, 'Cats and dogs', 2, '{}', null, 300),
  (4, 'O''Brien; a "quoted" life', null, null, 5, 50);
insert into public.rr_tags values (1, 'fiction'), (2, 'animals');
insert into public.rr_book_tags values (1, 1), (2, 2), (3, 1), (3, 2);
insert into public.rr_people values (1, 'root', null), (2, 'kid', 1);
insert into public.rr_reviews values (1, 1, 1, 2, 5), (2, 1, 2, 1, 3);
insert into public.rr_ranges values (1, '[1,5)', '{1,2}'), (2, '[10,20)', '{3}');
create or replace view public.rr_book_view as select id, title, author_id from public.rr_books;
create or replace view public.rr_author_view as select id, name from public.rr_authors;
-- Granted explicitly: new objects in public are granted to no one (as on hosted).
grant select on public.rr_authors, public.rr_books, public.rr_tags, public.rr_book_tags, public.rr_people,
  public.rr_reviews, public.rr_ranges, public.rr_book_view, public.rr_author_view to anon, authenticated, service_role;
`;

beforeAll(async () => {
  await arrange(SETUP, 'rr_author_view');
});

describe('select', () => {
  const db = anonClient();

  it('selects columns, *, aliases, casts and JSON paths', async () => {
    const { data, error } = await db
      .from('rr_authors')
      .select('id, who:name, born::text, inner:data->a->>b, data->n, idtext:id::text')
      .order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { id: 1, who: 'Ann', born: '1970-01-02', inner: 'deep', n: 5, idtext: '1' },
      { id: 2, who: 'Bob', born: null, inner: null, n: null, idtext: '2' },
      { id: 3, who: 'Cy', born: '1990-05-06', inner: null, n: 7, idtext: '3' },
    ]);
    const star = await db.from('rr_authors').select('*').eq('id', 1);
    expect(star.data).toEqual([{ id: 1, name: 'Ann', data: { a: { b: 'deep' }, n: 5 }, born: '1970-01-02' }]);
  });

  it('strips nulls when asked (.stripNulls())', async () => {
    const { data, error } = await db.from('rr_authors').select('id, name, data, born').eq('id', 2).stripNulls();
    expect(error).toBeNull();
    expect(data).toEqual([{ id: 2, name: 'Bob' }]);
    const one = await db.from('rr_books').select('id, price, rr_authors(name, data)').eq('id', 3).single().stripNulls();
    expect(one.data).toEqual({ id: 3, rr_authors: { name: 'Bob' } });
  });

  it('embeds many-to-one as an object or null, one-to-many as an array', async () => {
    const { data } = await db.from('rr_books').select('id, rr_authors(name)').in('id', [1, 4]).order('id');
    expect(data).toEqual([
      { id: 1, rr_authors: { name: 'Ann' } },
      { id: 4, rr_authors: null },
    ]);
    const authors = await db
      .from('rr_authors')
      .select('name, books:rr_books(id)')
      .order('id')
      .order('id', { referencedTable: 'books' });
    expect(authors.data).toEqual([
      { name: 'Ann', books: [{ id: 1 }, { id: 2 }] },
      { name: 'Bob', books: [{ id: 3 }] },
      { name: 'Cy', books: [] },
    ]);
  });

  it('embeds many-to-many through a junction table, nested and aliased', async () => {
    const { data, error } = await db
      .from('rr_books')
      .select('title, labels:rr_tags(label), writer:rr_authors(name, rr_books(id))')
      .eq('id', 3)
      .order('label', { referencedTable: 'labels' });
    expect(error).toBeNull();
    expect(data).toEqual([
      {
        title: 'Cats and dogs',
        labels: [{ label: 'animals' }, { label: 'fiction' }],
        writer: { name: 'Bob', rr_books: [{ id: 3 }] },
      },
    ]);
  });

  it('filters, orders and limits embedded resources; !inner filters the parent', async () => {
    const res = await db
      .from('rr_authors')
      .select('id, rr_books(id)')
      .order('id')
      .order('id', { referencedTable: 'rr_books', ascending: false })
      .limit(1, { referencedTable: 'rr_books' });
    expect(res.data).toEqual([
      { id: 1, rr_books: [{ id: 2 }] },
      { id: 2, rr_books: [{ id: 3 }] },
      { id: 3, rr_books: [] },
    ]);
    const inner = await db.from('rr_authors').select('id, rr_books!inner(id)').eq('rr_books.pages', 300);
    expect(inner.data).toEqual([{ id: 2, rr_books: [{ id: 3 }] }]);
    const or = await db
      .from('rr_authors')
      .select('id, rr_books(id)')
      .or('id.eq.1,pages.gt.150', { referencedTable: 'rr_books' })
      .eq('id', 1);
    expect(or.data).toEqual([{ id: 1, rr_books: [{ id: 1 }, { id: 2 }] }]);
    const nullEmbed = await db.from('rr_books').select('id, rr_authors(id)').is('rr_authors', null);
    expect(nullEmbed.data).toEqual([{ id: 4, rr_authors: null }]);
  });

  it('spreads a to-one embed into its parent (...embed), and a to-many one as arrays', async () => {
    const { data, error } = await db
      .from('rr_books')
      .select('id, ...rr_authors(author:name)')
      .in('id', [1, 4])
      .order('id');
    expect(error).toBeNull();
    expect(data).toEqual([
      { id: 1, author: 'Ann' },
      { id: 4, author: null },
    ]);
    const inner = await db.from('rr_books').select('id, ...rr_authors!inner(name)').in('id', [1, 4]);
    expect(inner.data).toEqual([{ id: 1, name: 'Ann' }]);
    const many = await db.from('rr_authors').select('id, ...rr_books(title)').eq('id', 2);
    expect(many.error).toBeNull();
    expect(many.data).toEqual([{ id: 2, title: ['Cats and dogs'] }]);
  });

  it('embeds through views that expose the foreign key columns', async () => {
    const toOne = await db.from('rr_book_view').select('id, rr_authors(name)').eq('id', 3);
    expect(toOne.error).toBeNull();
    expect(toOne.data).toEqual([{ id: 3, rr_authors: { name: 'Bob' } }]);
    const toMany = await db.from('rr_authors').select('name, rr_book_view(id)').eq('id', 2);
    expect(toMany.data).toEqual([{ name: 'Bob', rr_book_view: [{ id: 3 }] }]);
    const viewToView = await db.from('rr_author_view').select('name, rr_book_view(title)').eq('id', 2);
    expect(viewToView.data).toEqual([{ name: 'Bob', rr_book_view: [{ title: 'Cats and dogs' }] }]);
  });

  it('resolves hints and reports missing or ambiguous relationships', async () => {
    const hinted = await db
      .from('rr_reviews')
      .select('id, reviewer:rr_people!reviewer_id(name), editor:rr_people!rr_reviews_editor_fk(name)')
      .order('id');
    expect(hinted.data).toEqual([
      { id: 1, reviewer: { name: 'root' }, editor: { name: 'kid' } },
      { id: 2, reviewer: { name: 'kid' }, editor: { name: 'root' } },
    ]);
    const byColumn = await db.from('rr_reviews').select('id, reviewer_id(name)').eq('id', 1);
    expect(byColumn.data).toEqual([{ id: 1, reviewer_id: { name: 'root' } }]);
    const ambiguous = await db.from('rr_reviews').select('id, rr_people(name)');
    expect(ambiguous.status).toBe(300);
    expect(ambiguous.error).toMatchObject({
      code: 'PGRST201',
      message: "Could not embed because more than one relationship was found for 'rr_reviews' and 'rr_people'",
    });
    expect(ambiguous.error?.hint).toContain("'rr_people!rr_reviews_reviewer_fk'");
    const none = await db.from('rr_tags').select('id, rr_people(name)');
    expect(none.status).toBe(400);
    expect(none.error).toMatchObject({
      code: 'PGRST200',
      message: "Could not find a relationship between 'rr_tags' and 'rr_people' in the schema cache",
    });
    // On a self reference the table name (and a column hint) mean the children; the column name means the parent.
    const children = await db.from('rr_people').select('name, kids:rr_people!parent_id(name)').eq('id', 1);
    expect(children.data).toEqual([{ name: 'root', kids: [{ name: 'kid' }] }]);
    const self = await db.from('rr_people').select('name, parent:parent_id(name)').eq('id', 2);
    expect(self.data).toEqual([{ name: 'kid', parent: { name: 'root' } }]);
  });
});

describe('filters', () => {
  const db = anonClient();
  const ids = async (q: PromiseLike<{ data: { id: number }[] | null; error: unknown }>) => {
    const { data, error } = await q;
    expect(error).toBeNull();
    return (data ?? []).map((r) => r.id).sort((a, b) => a - b);
  };

  it('compares with eq, neq, gt, gte, lt, lte, isdistinct and in', async () => {
    const t = () => db.from('rr_books').select('id');
    expect(await ids(t().eq('pages', 100))).toEqual([1]);
    expect(await ids(t().neq('pages', 100))).toEqual([2, 3, 4]);
    expect(await ids(t().gt('pages', 100))).toEqual([2, 3]);
    expect(await ids(t().gte('pages', 100))).toEqual([1, 2, 3]);
    expect(await ids(t().lt('price', 10.5))).toEqual([4]);
    expect(await ids(t().lte('price', 10.5))).toEqual([1, 4]);
    expect(await ids(t().filter('price', 'isdistinct', 20))).toEqual([1, 3, 4]);
    expect(await ids(t().in('title', ['Cats and dogs', 'O\'Brien; a "quoted" life', 'a,b']))).toEqual([3, 4]);
    expect(await ids(t().in('id', []))).toEqual([]);
    expect(await ids(t().eq('title', 'O\'Brien; a "quoted" life'))).toEqual([4]);
  });

  it('matches patterns: like, ilike with * or %, match, imatch and quantifiers', async () => {
    const t = () => db.from('rr_books').select('id');
    expect(await ids(t().like('title', '%dogs%'))).toEqual([2, 3]);
    expect(await ids(t().ilike('title', '*DOGS*'))).toEqual([2, 3]);
    expect(await ids(t().match({ pages: 200 }))).toEqual([2]);
    expect(await ids(t().filter('title', 'match', '^[LC]'))).toEqual([2, 3]);
    expect(await ids(t().filter('title', 'imatch', '^the'))).toEqual([1]);
    expect(await ids(t().likeAnyOf('title', ['The%', 'Cats%']))).toEqual([1, 3]);
    expect(await ids(t().ilikeAllOf('title', ['%DOG%', '%s']))).toEqual([3]);
  });

  it('tests is null/true/false/not_null and negates any operator', async () => {
    const t = () => db.from('rr_books').select('id');
    expect(await ids(t().is('author_id', null))).toEqual([4]);
    expect(await ids(t().not('author_id', 'is', null))).toEqual([1, 2, 3]);
    expect(await ids(t().not('pages', 'in', '(100,200)'))).toEqual([3, 4]);
    expect(await ids(t().not('title', 'ilike', '*dog*'))).toEqual([1, 4]);
    const bools = await rest('/rr_books?select=id&id=eq.1&and=(pages.gt.1)&tags=not.is.null');
    expect(await bools.json()).toEqual([{ id: 1 }]);
  });

  it('handles arrays and ranges: cs, cd, ov, sl, sr, nxl, nxr, adj', async () => {
    const t = () => db.from('rr_books').select('id');
    expect(await ids(t().contains('tags', ['blue']))).toEqual([1, 2]);
    expect(await ids(t().containedBy('tags', ['blue', 'green']))).toEqual([2, 3]);
    expect(await ids(t().overlaps('tags', ['red', 'green']))).toEqual([1]);
    expect(await ids(t().filter('tags', 'ov', '(red,blue)'))).toEqual([1, 2]);
    const r = () => db.from('rr_ranges').select('id');
    expect(await ids(r().rangeLt('during', '[6,8)'))).toEqual([1]);
    expect(await ids(r().rangeGt('during', '[6,8)'))).toEqual([2]);
    expect(await ids(r().rangeGte('during', '[6,8)'))).toEqual([2]);
    expect(await ids(r().rangeLte('during', '[6,8)'))).toEqual([1]);
    expect(await ids(r().rangeAdjacent('during', '[5,10)'))).toEqual([1, 2]);
    expect(await ids(r().overlaps('during', '[4,11)'))).toEqual([1, 2]);
    expect(await ids(r().contains('nums', [2]))).toEqual([1]);
  });

  it('searches text with fts, plfts, phfts and wfts, with or without a config', async () => {
    const t = () => db.from('rr_books').select('id');
    expect(await ids(t().textSearch('title', 'dogs & sleep'))).toEqual([2]);
    expect(await ids(t().textSearch('title', 'dog', { config: 'english' }))).toEqual([2, 3]);
    expect(await ids(t().textSearch('title', 'quick fox', { type: 'plain', config: 'english' }))).toEqual([1]);
    expect(await ids(t().textSearch('title', 'brown fox', { type: 'phrase', config: 'english' }))).toEqual([1]);
    expect(await ids(t().textSearch('title', 'cats or lazy', { type: 'websearch', config: 'english' }))).toEqual([
      2, 3,
    ]);
  });

  it('combines or/and trees, nested and negated, on JSON paths too', async () => {
    const t = () => db.from('rr_books').select('id');
    expect(await ids(t().or('pages.eq.100,and(price.gte.20,pages.lt.250)'))).toEqual([1, 2]);
    expect(await ids(t().or('title.eq.O\'Brien; a "quoted" life,id.eq.1'))).toEqual([1, 4]);
    const quoted = await rest(
      `/rr_books?select=id&or=(title.eq."${encodeURIComponent('O\'Brien; a \\"quoted\\" life')}",id.eq.2)`,
    );
    expect(await quoted.json()).toEqual([{ id: 2 }, { id: 4 }]);
    const notOr = await rest('/rr_books?select=id&not.or=(id.eq.1,id.eq.2)&order=id');
    expect(await notOr.json()).toEqual([{ id: 3 }, { id: 4 }]);
    expect(await ids(t().or('id.in.(1,3),title.like.*fox*'))).toEqual([1, 3]);
    const a = await db.from('rr_authors').select('id').eq('data->a->>b', 'deep');
    expect(a.data).toEqual([{ id: 1 }]);
    const n = await db.from('rr_authors').select('id').gt('data->>n', '6');
    expect(n.data).toEqual([{ id: 3 }]);
  });
});

describe('order, pages and counts', () => {
  const db = anonClient();

  it('orders by several columns, nulls first or last, and by JSON paths', async () => {
    const { data } = await db
      .from('rr_books')
      .select('id')
      .order('price', { ascending: false, nullsFirst: true })
      .order('id');
    expect(data?.map((r: { id: number }) => r.id)).toEqual([3, 2, 1, 4]);
    const last = await rest('/rr_books?select=id&order=price.asc.nullslast,id.desc');
    expect((await json<{ id: number }[]>(last)).map((r) => r.id)).toEqual([4, 1, 2, 3]);
    const jsonRes = await rest('/rr_authors?select=id&order=data->n.desc.nullslast');
    expect((await json<{ id: number }[]>(jsonRes)).map((r) => r.id)).toEqual([3, 1, 2]);
  });

  it('pages with limit/offset (range) and reports Content-Range with counts', async () => {
    const res = await db.from('rr_books').select('id', { count: 'exact' }).order('id').range(1, 2);
    expect(res.data).toEqual([{ id: 2 }, { id: 3 }]);
    expect(res.count).toBe(4);
    expect(res.status).toBe(206);
    const raw = await rest('/rr_books?select=id&order=id&offset=1&limit=2', { headers: { prefer: 'count=exact' } });
    expect(raw.status).toBe(206);
    expect(raw.headers.get('content-range')).toBe('1-2/4');
    const all = await rest('/rr_books?select=id', { headers: { prefer: 'count=exact' } });
    expect(all.status).toBe(200);
    expect(all.headers.get('content-range')).toBe('0-3/4');
    const noCount = await rest('/rr_books?select=id&limit=1');
    expect(noCount.headers.get('content-range')).toBe('0-0/*');
    const empty = await rest('/rr_books?select=id&id=eq.999');
    expect(empty.headers.get('content-range')).toBe('*/*');
    const emptyCounted = await rest('/rr_books?select=id&id=eq.999', { headers: { prefer: 'count=exact' } });
    expect(emptyCounted.headers.get('content-range')).toBe('*/0');
    const ranged = await rest('/rr_books?select=id&order=id', { headers: { range: '2-3', 'range-unit': 'items' } });
    expect(await ranged.json()).toEqual([{ id: 3 }, { id: 4 }]);
    const beyond = await rest('/rr_books?select=id&offset=10', { headers: { prefer: 'count=exact' } });
    expect(beyond.status).toBe(416);
    expect((await json(beyond)).code).toBe('PGRST103');
  });

  it('answers HEAD with headers only, and planned/estimated counts', async () => {
    const head = await db.from('rr_books').select('*', { count: 'exact', head: true }).gt('pages', 100);
    expect(head.count).toBe(2);
    expect(head.data).toBeNull();
    const planned = await db.from('rr_books').select('*', { count: 'planned', head: true });
    expect(typeof planned.count).toBe('number');
    const estimated = await db.from('rr_books').select('*', { count: 'estimated', head: true });
    expect(estimated.count).toBe(4);
    const raw = await rest('/rr_books?select=id', { method: 'HEAD' });
    expect(raw.status).toBe(200);
    expect(await raw.text()).toBe('');
  });

  it('returns one object with .single() and PGRST116 for 0 or many rows', async () => {
    const one = await db.from('rr_books').select('id, title').eq('id', 2).single();
    expect(one.data).toEqual({ id: 2, title: 'Lazy dogs sleep' });
    const many = await db.from('rr_books').select('id').single();
    expect(many.status).toBe(406);
    expect(many.error).toMatchObject({
      code: 'PGRST116',
      message: 'Cannot coerce the result to a single JSON object',
      details: 'The result contains 4 rows',
    });
    const none = await db.from('rr_books').select('id').eq('id', 99).single();
    expect(none.error?.details).toBe('The result contains 0 rows');
    const maybe = await db.from('rr_books').select('id').eq('id', 99).maybeSingle();
    expect(maybe.error).toBeNull();
    expect(maybe.data).toBeNull();
  });

  it('caps every read at db-max-rows (1000), whatever limit is asked', async () => {
    await arrange(
      `create table if not exists public.rr_many (id int primary key);
      insert into public.rr_many select generate_series(1, 1005) on conflict do nothing;
      grant select on public.rr_many to anon;`,
      'rr_many',
    );
    const all = await db.from('rr_many').select('id', { count: 'exact' });
    expect(all.data).toHaveLength(1000);
    expect(all.count).toBe(1005);
    const asked = await rest('/rr_many?select=id&limit=2000&order=id');
    const rows = await json<{ id: number }[]>(asked);
    expect(rows).toHaveLength(1000);
    expect(asked.headers.get('content-range')).toBe('0-999/*');
  });

  it('renders CSV', async () => {
    const res = await rest('/rr_books?select=id,title,tags&id=in.(1,4)&order=id', { headers: { accept: 'text/csv' } });
    expect(res.headers.get('content-type')).toContain('text/csv');
    // PostgreSQL's record text without the parentheses, as PostgREST renders CSV.
    expect(await res.text()).toBe(
      'id,title,tags\n1,"The quick brown fox","{red,blue}"\n4,"O\'Brien; a ""quoted"" life",',
    );
    const viaClient = await db.from('rr_authors').select('id,name').eq('id', 2).csv();
    expect(viaClient.data).toBe('id,name\n2,Bob');
  });
});
