import { describe, expect, it } from 'vitest';
import { RestError } from '../../../server/rest/errors.ts';
import { parseAccept, parsePrefer, parseRange, chooseSchema } from '../../../server/rest/parse/headers.ts';
import { parseFilterParam, parseList, parseLogicParam } from '../../../server/rest/parse/filter.ts';
import { parseOrder, parseQuery } from '../../../server/rest/parse/query.ts';
import { parseSelect } from '../../../server/rest/parse/select.ts';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof RestError) return `${error.status} ${error.code}`;
    throw error;
  }
  return 'ok';
}

describe('select parser', () => {
  it('reads columns, aliases, casts and JSON paths', () => {
    expect(parseSelect('id,who:name,born::text,data->a->>b,x:data->0')).toEqual([
      { kind: 'column', field: { name: 'id', path: [] }, alias: null, cast: null },
      { kind: 'column', field: { name: 'name', path: [] }, alias: 'who', cast: null },
      { kind: 'column', field: { name: 'born', path: [] }, alias: null, cast: 'text' },
      {
        kind: 'column',
        field: {
          name: 'data',
          path: [
            { arrow: '->', key: 'a' },
            { arrow: '->>', key: 'b' },
          ],
        },
        alias: null,
        cast: null,
      },
      { kind: 'column', field: { name: 'data', path: [{ arrow: '->', key: '0' }] }, alias: 'x', cast: null },
    ]);
  });

  it('reads embeds with aliases, hints, join types and nesting', () => {
    expect(parseSelect('*,a:authors!fk_author!inner(name,books(*)),tags!left()')).toEqual([
      { kind: 'star' },
      {
        kind: 'embed',
        name: 'authors',
        alias: 'a',
        hint: 'fk_author',
        join: 'inner',
        spread: false,
        select: [
          { kind: 'column', field: { name: 'name', path: [] }, alias: null, cast: null },
          {
            kind: 'embed',
            name: 'books',
            alias: null,
            hint: null,
            join: null,
            spread: false,
            select: [{ kind: 'star' }],
          },
        ],
      },
      { kind: 'embed', name: 'tags', alias: null, hint: null, join: 'left', spread: false, select: [] },
    ]);
    expect(parseSelect('id,...authors!inner(name)')[1]).toMatchObject({
      kind: 'embed',
      name: 'authors',
      join: 'inner',
      spread: true,
    });
  });

  it('accepts quoted names and refuses SQL-looking or unbalanced input with PGRST100', () => {
    expect(parseSelect('"my col"')).toEqual([
      { kind: 'column', field: { name: 'my col', path: [] }, alias: null, cast: null },
    ]);
    for (const bad of ['id;drop', 'a(b', 'a)', "data->>'x'", 'id::text;', 'id,', '...spread', 'a!x!y!z(*)']) {
      expect(
        code(() => parseSelect(bad)),
        bad,
      ).toBe('400 PGRST100');
    }
  });
});

describe('filter parser', () => {
  it('reads operators, negation, quantifiers and full-text configs', () => {
    expect(parseFilterParam('age', 'not.gte.18')).toMatchObject({
      op: 'gte',
      negate: true,
      value: { kind: 'scalar', value: '18' },
    });
    expect(parseFilterParam('name', 'like.*a*')).toMatchObject({ op: 'like', value: { kind: 'scalar', value: '%a%' } });
    expect(parseFilterParam('name', 'ilike(any).{a*,b*}')).toMatchObject({
      op: 'ilike',
      quantifier: 'any',
      value: { value: '{a%,b%}' },
    });
    expect(parseFilterParam('doc', 'wfts(english).cat & dog')).toMatchObject({
      op: 'wfts',
      value: { kind: 'fts', config: 'english', query: 'cat & dog' },
    });
    expect(parseFilterParam('doc', 'fts.cat')).toMatchObject({ value: { kind: 'fts', config: null, query: 'cat' } });
    expect(parseFilterParam('x', 'is.NULL')).toMatchObject({ value: { kind: 'is', value: 'null' } });
    expect(parseFilterParam('x', 'is.not_null')).toMatchObject({ value: { kind: 'is', value: 'not_null' } });
    expect(parseFilterParam('data->a->>b', 'eq.1')).toMatchObject({
      field: {
        name: 'data',
        path: [
          { arrow: '->', key: 'a' },
          { arrow: '->>', key: 'b' },
        ],
      },
    });
    expect(parseFilterParam('x', 'eq.')).toMatchObject({ value: { kind: 'scalar', value: '' } });
  });

  it('reads in-lists with quotes, commas and escapes', () => {
    expect(parseList('(1,2,"a,b","say \\"hi\\"",")(")')).toEqual(['1', '2', 'a,b', 'say "hi"', ')(']);
    expect(parseList('()')).toEqual([]);
    expect(code(() => parseFilterParam('x', 'in.(1,2'))).toBe('400 PGRST100');
  });

  it('refuses unknown operators, bad is values, bad quantifiers and configs', () => {
    for (const bad of ['zz.1', 'eq', 'is.maybe', 'in.1,2', 'cs(any).{1}', 'fts(en;drop).x', 'eq(some).1']) {
      expect(
        code(() => parseFilterParam('x', bad)),
        bad,
      ).toBe('400 PGRST100');
    }
    expect(code(() => parseFilterParam('x;drop', 'eq.1'))).toBe('400 PGRST100');
  });

  it('reads nested and negated logic trees with quoted values', () => {
    const tree = parseLogicParam('or', false, '(a.eq.1,not.and(b.gt.2,c.is.null),d.in.(1,"x,y"),e.eq."q,(t)")');
    expect(tree).toMatchObject({
      kind: 'logic',
      op: 'or',
      negate: false,
      children: [
        { kind: 'filter', op: 'eq', field: { name: 'a' } },
        { kind: 'logic', op: 'and', negate: true, children: [{ op: 'gt' }, { op: 'is' }] },
        { kind: 'filter', op: 'in', value: { kind: 'list', values: ['1', 'x,y'] } },
        { kind: 'filter', op: 'eq', value: { kind: 'scalar', value: 'q,(t)' } },
      ],
    });
    for (const bad of ['(a.eq.1', 'a.eq.1)', '()', '(a.zz.1)', '(and(a.eq.1)', '("a.eq.1)']) {
      expect(
        code(() => parseLogicParam('or', false, bad)),
        bad,
      ).toBe('400 PGRST100');
    }
  });
});

describe('query string', () => {
  it('sorts parameters into levels: filters, trees, order, limit, offset per embed path', () => {
    const { query } = parseQuery(
      new URLSearchParams(
        'select=id,b(c(*))&id=eq.1&b.x=gt.2&b.c.order=y.desc&b.limit=3&b.offset=1&not.or=(a.eq.1)&b.or=(x.eq.1)&limit=10&order=id.asc.nullsfirst&apikey=k',
      ),
    );
    expect(query.levels.get('')).toMatchObject({
      limit: 10,
      offset: null,
      order: [{ relation: null, field: { name: 'id' }, direction: 'asc', nulls: 'first' }],
    });
    expect(query.levels.get('')?.conditions).toHaveLength(2);
    expect(query.levels.get('b')).toMatchObject({ limit: 3, offset: 1 });
    expect(query.levels.get('b')?.conditions).toHaveLength(2);
    expect(query.levels.get('b.c')?.order).toEqual([
      { relation: null, field: { name: 'y', path: [] }, direction: 'desc', nulls: null },
    ]);
  });

  it('leaves rpc arguments aside when asked', () => {
    const { query, args } = parseQuery(new URLSearchParams('a=1&b={1,2}&c=eq.3'), (k) => k === 'a' || k === 'b');
    expect(args).toEqual([
      ['a', '1'],
      ['b', '{1,2}'],
    ]);
    expect(query.levels.get('')?.conditions).toHaveLength(1);
  });

  it('reads columns and on_conflict lists, and refuses bad limits and orders', () => {
    expect(parseQuery(new URLSearchParams('columns="a","b c"&on_conflict=id,name')).query).toMatchObject({
      columns: ['a', 'b c'],
      onConflict: ['id', 'name'],
    });
    expect(parseOrder('data->>x.desc,b')).toEqual([
      { relation: null, field: { name: 'data', path: [{ arrow: '->>', key: 'x' }] }, direction: 'desc', nulls: null },
      { relation: null, field: { name: 'b', path: [] }, direction: null, nulls: null },
    ]);
    for (const bad of ['limit=x', 'offset=-1', 'order=id.sideways', 'order=id;drop', 'columns=a;b']) {
      expect(
        code(() => parseQuery(new URLSearchParams(bad))),
        bad,
      ).toBe('400 PGRST100');
    }
  });
});

describe('headers', () => {
  it('reads Prefer, ignoring what it does not know', () => {
    expect(
      parsePrefer(
        'return=representation, count=exact; resolution=merge-duplicates,missing=default,tx=rollback,params=single-object,foo=bar',
      ),
    ).toMatchObject({
      return: 'representation',
      count: 'exact',
      resolution: 'merge-duplicates',
      missing: 'default',
      tx: 'rollback',
      params: 'single-object',
    });
    expect(parsePrefer(undefined).return).toBeNull();
  });

  it('negotiates Accept, Range and profiles', () => {
    expect(parseAccept('application/vnd.pgrst.object+json')).toBe('object');
    expect(parseAccept('text/csv')).toBe('csv');
    expect(parseAccept('*/*')).toBe('json');
    expect(code(() => parseAccept('image/png'))).toBe('406 PGRST107');
    expect(parseRange('0-9')).toEqual({ offset: 0, limit: 10 });
    expect(parseRange('5-')).toEqual({ offset: 5, limit: null });
    expect(code(() => parseRange('9-0'))).toBe('416 PGRST103');
    expect(chooseSchema('GET', { 'accept-profile': 'api' }, ['public', 'api'])).toBe('api');
    expect(chooseSchema('POST', {}, ['public', 'api'])).toBe('public');
    expect(code(() => chooseSchema('POST', { 'content-profile': 'auth' }, ['public']))).toBe('406 PGRST106');
  });
});
