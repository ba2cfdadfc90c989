/**
 * Text-form column values (as pgoutput sends them) turned into the JSON values hosted
 * realtime sends. Hosted casts each WAL value to its column type and applies `to_jsonb`,
 * so integers and numerics arrive as numbers, booleans as booleans, json as objects,
 * arrays as arrays and timestamps in ISO 8601 with a `T`; realtime-js then leaves those
 * alone. Everything else stays the text PostgreSQL prints.
 */

/** How a type's text form becomes JSON; decided once per type from its base type. */
export type ValueKind =
  | 'int'
  | 'float'
  | 'numeric'
  | 'bool'
  | 'json'
  | 'timestamp'
  | 'timestamptz'
  | 'timetz'
  | 'string'
  /** Composite rows: `to_jsonb` makes an object; converted in SQL (see sqlFallback). */
  | 'composite';

export interface TypeInfo {
  oid: number;
  /** pg_type.typname, the name hosted reports in `columns[].type` (int8, _text, ...). */
  name: string;
  /** A type expression valid in SQL casts (format_type), e.g. `character varying`. */
  castName: string;
  kind: ValueKind;
  /** For arrays: the element type. */
  element?: TypeInfo;
}

const KIND_BY_BUILTIN_OID: Record<number, ValueKind> = {
  20: 'int',
  21: 'int',
  23: 'int',
  26: 'int',
  700: 'float',
  701: 'float',
  1700: 'numeric',
  16: 'bool',
  114: 'json',
  3802: 'json',
  1114: 'timestamp',
  1184: 'timestamptz',
  1266: 'timetz',
};

export function kindOfBuiltin(oid: number, typtype: string): ValueKind {
  if (typtype === 'c') return 'composite';
  return KIND_BY_BUILTIN_OID[oid] ?? 'string';
}

/** True when the value (or an array element) needs SQL to become JSON. */
export function needsSql(type: TypeInfo): boolean {
  return type.kind === 'composite' || (type.element !== undefined && needsSql(type.element));
}

function numberOrText(text: string): number | string {
  const n = Number(text);
  // to_jsonb keeps NaN and ±Infinity as strings; JSON has no such numbers.
  return Number.isFinite(n) ? n : text;
}

/** `+00` -> `+00:00`: to_jsonb always writes the offset's minutes. */
function isoOffset(text: string): string {
  return /[+-]\d\d$/.test(text) ? `${text}:00` : text;
}

function scalar(kind: ValueKind, text: string): unknown {
  switch (kind) {
    case 'int':
    case 'float':
    case 'numeric':
      return numberOrText(text);
    case 'bool':
      return text === 't' || text === 'true';
    case 'json':
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    case 'timestamp':
      return text.replace(' ', 'T');
    case 'timestamptz':
      return isoOffset(text.replace(' ', 'T'));
    case 'timetz':
      return isoOffset(text);
    default:
      return text;
  }
}

/** Converts one text-form value of `type` to JSON; null stays null. */
export function toJsonValue(type: TypeInfo, text: string | null): unknown {
  if (text === null) return null;
  if (type.element) {
    const element = type.element;
    return mapArray(parseArrayLiteral(text), (item) => (item === null ? null : toJsonValue(element, item)));
  }
  return scalar(type.kind, text);
}

export type ArrayNode = string | null | ArrayNode[];

function mapArray(node: ArrayNode, fn: (item: string | null) => unknown): unknown {
  return Array.isArray(node) ? node.map((n) => mapArray(n, fn)) : fn(node);
}

/**
 * Parses PostgreSQL's array output (`{1,2}`, `{"a b",NULL}`, `{{1,2},{3,4}}`,
 * `[0:1]={1,2}`) into nested arrays of element texts. A malformed literal is returned
 * whole as a one-element list rather than thrown: bad input never stops the stream.
 */
export function parseArrayLiteral(text: string): ArrayNode[] {
  let source = text;
  if (source.startsWith('[')) {
    const eq = source.indexOf('=');
    if (eq > 0) source = source.slice(eq + 1);
  }
  let pos = 0;
  const fail = (): never => {
    throw new Error('malformed array literal');
  };
  const parseLevel = (): ArrayNode[] => {
    if (source[pos] !== '{') fail();
    pos++;
    const items: ArrayNode[] = [];
    if (source[pos] === '}') {
      pos++;
      return items;
    }
    for (;;) {
      const ch = source[pos];
      if (ch === '{') items.push(parseLevel());
      else if (ch === '"') {
        pos++;
        let value = '';
        while (pos < source.length && source[pos] !== '"') {
          if (source[pos] === '\\') pos++;
          value += source[pos] ?? '';
          pos++;
        }
        if (source[pos] !== '"') fail();
        pos++;
        items.push(value);
      } else {
        const start = pos;
        while (pos < source.length && source[pos] !== ',' && source[pos] !== '}') pos++;
        const raw = source.slice(start, pos).trim();
        items.push(raw.toUpperCase() === 'NULL' ? null : raw);
      }
      const sep = source[pos];
      pos++;
      if (sep === '}') return items;
      if (sep !== ',') fail();
    }
  };
  try {
    const result = parseLevel();
    return result;
  } catch {
    return [text];
  }
}
