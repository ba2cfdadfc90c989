import type { LevelModifiers, OrderTerm, ParsedQuery } from '../ast.ts';
import { parseError } from '../errors.ts';
import { Cursor, SyntaxError_, splitTopLevel } from './cursor.ts';
import { parseFilterParam, parseLogicParam } from './filter.ts';
import { parseSelect } from './select.ts';

export interface ParseResult {
  query: ParsedQuery;
  /** Parameters taken as rpc arguments (GET /rpc/fn?x=1). */
  args: [string, string][];
}

function level(levels: Map<string, LevelModifiers>, path: string): LevelModifiers {
  let found = levels.get(path);
  if (!found) {
    found = { conditions: [], order: null, limit: null, offset: null };
    levels.set(path, found);
  }
  return found;
}

function nonNegative(name: string, value: string): number {
  if (!/^\d{1,15}$/.test(value.trim()))
    throw parseError(name, value, `unexpected "${value}" expecting a non-negative integer`);
  return Number(value.trim());
}

/** `col.desc.nullslast,data->>x,other.asc` */
export function parseOrder(text: string): OrderTerm[] {
  try {
    return splitTopLevel(text).map((part) => {
      const c = new Cursor(part.trim());
      let relation: string | null = null;
      let field = c.field();
      if (field.path.length === 0 && c.eat('(')) {
        relation = field.name;
        field = c.field();
        c.expect(')');
      }
      let direction: OrderTerm['direction'] = null;
      let nulls: OrderTerm['nulls'] = null;
      while (c.eat('.')) {
        if (c.eat('asc')) direction = 'asc';
        else if (c.eat('desc')) direction = 'desc';
        else if (c.eat('nullsfirst')) nulls = 'first';
        else if (c.eat('nullslast')) nulls = 'last';
        else c.fail('"asc", "desc", "nullsfirst" or "nullslast"');
      }
      if (!c.done) c.fail('"." or ","');
      return { relation, field, direction, nulls };
    });
  } catch (error) {
    if (error instanceof SyntaxError_) throw parseError('order', text, error.message);
    throw error;
  }
}

/** `"a","b"` or `a,b`: the columns= and on_conflict= lists. */
export function parseNameList(what: string, text: string): string[] {
  try {
    return splitTopLevel(text).map((part) => {
      const c = new Cursor(part.trim());
      const name = c.name();
      if (!c.done) c.fail('"," or end of input');
      return name;
    });
  } catch (error) {
    if (error instanceof SyntaxError_) throw parseError(what, text, error.message);
    throw error;
  }
}

/**
 * Parses a PostgREST query string. `isArg` claims plain keys as rpc arguments before
 * they are read as filters (GET on a function).
 */
export function parseQuery(params: URLSearchParams, isArg: (key: string) => boolean = () => false): ParseResult {
  const query: ParsedQuery = { select: null, columns: null, onConflict: null, levels: new Map() };
  const args: [string, string][] = [];
  level(query.levels, '');
  for (const [key, value] of params) {
    if (key === 'select') {
      query.select = value.trim() === '' ? null : parseSelect(value);
      continue;
    }
    if (key === 'columns') {
      query.columns = parseNameList('columns parameter', value);
      continue;
    }
    if (key === 'on_conflict') {
      query.onConflict = parseNameList('on_conflict parameter', value);
      continue;
    }
    if (key === 'apikey') continue;
    if (isArg(key)) {
      args.push([key, value]);
      continue;
    }
    const segments = key.split('.');
    let last = segments.pop() ?? '';
    let negate = false;
    if ((last === 'or' || last === 'and') && segments[segments.length - 1] === 'not') {
      segments.pop();
      negate = true;
    }
    const path = segments.join('.');
    const mods = level(query.levels, path);
    if (negate || last === 'or' || last === 'and') {
      mods.conditions.push(parseLogicParam(last as 'or' | 'and', negate, value));
    } else if (last === 'order') mods.order = parseOrder(value);
    else if (last === 'limit') mods.limit = nonNegative('limit', value);
    else if (last === 'offset') mods.offset = nonNegative('offset', value);
    else {
      if (last === '') last = key;
      mods.conditions.push(parseFilterParam(last, value));
    }
  }
  return { query, args };
}
