import {
  FTS_OPERATORS,
  OPERATORS,
  QUANTIFIABLE,
  type Condition,
  type Field,
  type Filter,
  type FilterValue,
  type IsValue,
  type LogicTree,
  type Operator,
} from '../ast.ts';
import { parseError } from '../errors.ts';
import { Cursor, SyntaxError_, splitTopLevel } from './cursor.ts';

const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);
const IS_VALUES: Record<string, IsValue> = {
  null: 'null',
  not_null: 'not_null',
  true: 'true',
  false: 'false',
  unknown: 'unknown',
};
const OPERATOR_LIST = `operator (${OPERATORS.join(', ')})`;

/** Parses a filter's `[not.]op[(any|all)|(config)].value` part for the given field. */
export function parseFilter(field: Field, raw: string, inLogic = false): Filter {
  let rest = raw;
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const m = /^([a-z]+)(?:\(([^)]*)\))?\./.exec(rest);
  if (!m || !OPERATOR_SET.has(m[1]!)) {
    const shown = m?.[1] ?? rest.split('.')[0] ?? '';
    throw new SyntaxError_(`unexpected "${shown}" expecting "not" or ${OPERATOR_LIST}`);
  }
  const op = m[1] as Operator;
  const modifier = m[2];
  let value = rest.slice(m[0].length);
  if (inLogic && value.startsWith('"') && value.endsWith('"') && value.length >= 2 && op !== 'in') {
    value = new Cursor(value).quoted();
  }
  let quantifier: Filter['quantifier'] = null;
  let parsed: FilterValue;
  if (FTS_OPERATORS.has(op)) {
    if (modifier !== undefined && !/^[A-Za-z0-9_.]+$/.test(modifier))
      throw new SyntaxError_('unexpected text search configuration');
    parsed = { kind: 'fts', config: modifier ?? null, query: value };
  } else {
    if (modifier !== undefined) {
      if ((modifier !== 'any' && modifier !== 'all') || !QUANTIFIABLE.has(op)) {
        throw new SyntaxError_(`unexpected "(${modifier})" after operator ${op}`);
      }
      quantifier = modifier;
    }
    if (op === 'in') parsed = { kind: 'list', values: parseList(value) };
    else if (op === 'is') {
      const is = IS_VALUES[value.toLowerCase()];
      if (!is) throw new SyntaxError_(`unexpected "${value}" expecting null, not_null, true, false or unknown`);
      parsed = { kind: 'is', value: is };
    } else {
      if (op === 'like' || op === 'ilike') value = value.replace(/\*/g, '%');
      parsed = { kind: 'scalar', value };
    }
  }
  return { kind: 'filter', field, negate, op, quantifier, value: parsed };
}

/** `(a,"b,c",d)`: the `in` operator's list. */
export function parseList(text: string): string[] {
  if (!text.startsWith('(') || !text.endsWith(')')) throw new SyntaxError_('unexpected value expecting "(" ... ")"');
  const inner = text.slice(1, -1);
  if (inner.trim() === '') return [];
  return splitTopLevel(inner).map((item) => {
    const t = item.trim();
    return t.startsWith('"') ? new Cursor(t).quoted() : t;
  });
}

/** Parses one query parameter that is a filter, wrapping syntax errors into PGRST100. */
export function parseFilterParam(column: string, raw: string): Filter {
  try {
    const c = new Cursor(column);
    const field = c.field();
    if (!c.done) c.fail('"->", "->>" or end of input');
    return parseFilter(field, raw);
  } catch (error) {
    if (error instanceof SyntaxError_) throw parseError('filter', raw, error.message);
    throw error;
  }
}

/** Parses `(a.eq.1,or(b.gt.2,not.c.is.null))` for the key `or`/`and`/`not.or`/`not.and`. */
export function parseLogicParam(op: 'and' | 'or', negate: boolean, raw: string): LogicTree {
  try {
    if (!raw.startsWith('(') || !raw.endsWith(')')) throw new SyntaxError_('unexpected input expecting "("');
    return { kind: 'logic', op, negate, children: logicChildren(raw.slice(1, -1)) };
  } catch (error) {
    if (error instanceof SyntaxError_) throw parseError('logic tree', raw, error.message);
    throw error;
  }
}

/** Nesting deeper than this is refused rather than risking the stack. */
const MAX_LOGIC_DEPTH = 16;

function logicChildren(inner: string, depth = 0): Condition[] {
  if (depth > MAX_LOGIC_DEPTH) throw new SyntaxError_(`logic trees nested deeper than ${MAX_LOGIC_DEPTH} levels`);
  if (inner.trim() === '') throw new SyntaxError_('unexpected ")" expecting a filter');
  return splitTopLevel(inner).map((part) => logicChild(part.trim(), depth));
}

function logicChild(text: string, depth: number): Condition {
  const m = /^(not\.)?(and|or)\((.*)\)$/s.exec(text);
  if (m)
    return {
      kind: 'logic',
      op: m[2] as 'and' | 'or',
      negate: Boolean(m[1]),
      children: logicChildren(m[3]!, depth + 1),
    };
  const c = new Cursor(text);
  const field = c.field();
  c.expect('.');
  return parseFilter(field, text.slice(c.pos), true);
}
