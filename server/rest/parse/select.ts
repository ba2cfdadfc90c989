import { AGGREGATES, type AggregateFn, type SelectAggregate, type SelectEmbed, type SelectItem } from '../ast.ts';
import { parseError } from '../errors.ts';
import { Cursor, SyntaxError_ } from './cursor.ts';

const CAST = /^[A-Za-z_][A-Za-z0-9_ ]*(\[\])?$/;
/** Deeper embedding than this is refused rather than risking the stack. */
export const MAX_DEPTH = 16;

/** Parses PostgREST's `select` grammar: columns, aliases, casts, JSON paths, embeds. */
export function parseSelect(text: string): SelectItem[] {
  const cursor = new Cursor(text);
  try {
    const items = selectList(cursor);
    if (!cursor.done) cursor.fail('"," or end of input');
    return items;
  } catch (error) {
    if (error instanceof SyntaxError_) throw parseError('select parameter', text, error.message);
    throw error;
  }
}

function selectList(c: Cursor, depth = 0): SelectItem[] {
  if (depth > MAX_DEPTH) throw new SyntaxError_(`embedding deeper than ${MAX_DEPTH} levels`);
  const items: SelectItem[] = [];
  if (c.done || c.peek() === ')') return items;
  for (;;) {
    items.push(selectItem(c, depth));
    if (!c.eat(',')) break;
  }
  return items;
}

function selectItem(c: Cursor, depth: number): SelectItem {
  while (c.peek() === ' ') c.pos++;
  if (c.eat('*')) return { kind: 'star' };
  if (c.eat('...')) {
    const name = c.name();
    if (c.peek() !== '!' && c.peek() !== '(') c.fail('"(" after a spread embed');
    return { ...embed(c, name, null, depth), spread: true };
  }
  let alias: string | null = null;
  const first = c.field();
  let field = first;
  // `alias:...` (but not `col::cast`)
  if (c.peek() === ':' && c.peek(1) !== ':') {
    if (first.path.length > 0) c.fail('"," or ")"');
    c.pos++;
    alias = first.name;
    field = c.field();
  }
  if (field.path.length === 0 && field.name === 'count' && c.eat('()')) return aggregate(c, 'count', null, alias);
  if (c.peek() === '!' || c.peek() === '(') {
    if (field.path.length > 0) c.fail('"," or end of input');
    return embed(c, field.name, alias, depth);
  }
  if (c.eat('.')) {
    const fn = c.name('an aggregate function');
    if (!(AGGREGATES as readonly string[]).includes(fn)) c.fail('"count", "sum", "avg", "min" or "max"');
    c.expect('()');
    return aggregate(c, fn as AggregateFn, field, alias);
  }
  return { kind: 'column', field, alias, cast: castOf(c) };
}

function castOf(c: Cursor): string | null {
  if (!c.eat('::')) return null;
  const start = c.pos;
  while (!c.done && /[A-Za-z0-9_ [\]]/.test(c.peek())) c.pos++;
  const cast = c.text.slice(start, c.pos).trim();
  if (!CAST.test(cast)) c.fail('a type name');
  return cast;
}

function aggregate(c: Cursor, fn: AggregateFn, field: SelectAggregate['field'], alias: string | null): SelectAggregate {
  return { kind: 'aggregate', fn, field, alias, cast: castOf(c) };
}

function embed(c: Cursor, name: string, alias: string | null, depth: number): SelectEmbed {
  let hint: string | null = null;
  let join: SelectEmbed['join'] = null;
  while (c.eat('!')) {
    const word = c.name('embed hint');
    if (word === 'inner' || word === 'left') join = word;
    else if (hint === null) hint = word;
    else c.fail('"inner" or "left"');
  }
  c.expect('(');
  const select = selectList(c, depth + 1);
  c.expect(')');
  return { kind: 'embed', name, alias, hint, join, spread: false, select };
}
