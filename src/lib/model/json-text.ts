import { indexPath, keyPath } from './paths.ts';
import type { Issue, Json, JsonObject } from './types.ts';

/**
 * A JSON reader for the code view. Unlike `JSON.parse` it reports where things are:
 * syntax errors with line and column, every duplicate key (JSON.parse silently keeps the
 * last one, which would drop a state someone typed), and the source span of every value
 * by config path, so issues found later can be shown inline.
 */

export interface Span {
  /** Offset of the key (for object members) or of the value. */
  start: number;
  /** Offset just past the value. */
  end: number;
}

export type ParseResult =
  { ok: true; value: Json; spans: Map<string, Span>; duplicates: Issue[] } | { ok: false; issue: Issue };

const MAX_DEPTH = 500;

class SyntaxFailure extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

export function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

export function at(text: string, start: number, end: number): NonNullable<Issue['at']> {
  return { offset: start, end, ...position(text, start) };
}

export function parseJsonText(text: string): ParseResult {
  const spans = new Map<string, Span>();
  const duplicates: Issue[] = [];
  let i = 0;

  const describe = (offset: number): string =>
    offset >= text.length ? 'end of input' : `${JSON.stringify(text[offset])}`;
  const fail = (message: string, offset = i): never => {
    throw new SyntaxFailure(offset, message);
  };
  const skipSpace = (): void => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  const expect = (ch: string, what: string): void => {
    skipSpace();
    if (text[i] !== ch) fail(`expected ${what} but found ${describe(i)}`);
    i++;
  };

  const readString = (): string => {
    const start = i;
    i++; // opening quote
    let out = '';
    let chunk = i;
    for (;;) {
      if (i >= text.length) fail('unterminated string', start);
      const c = text.charCodeAt(i);
      if (c === 34) {
        out += text.slice(chunk, i);
        i++;
        return out;
      }
      if (c < 32) fail('control character in string (escape it)');
      if (c === 92) {
        out += text.slice(chunk, i);
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === 'u') {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('invalid \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          fail('invalid escape in string');
        }
        chunk = i;
        continue;
      }
      i++;
    }
  };

  const readNumber = (): number => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return fail(`unexpected ${describe(i)}`);
    i += m[0].length;
    return Number(m[0]);
  };

  const readLiteral = (): Json => {
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return literal;
      }
    }
    return fail(`unexpected ${describe(i)}`);
  };

  const readValue = (path: string, depth: number, keyStart: number | null): Json => {
    skipSpace();
    const start = i;
    if (depth > MAX_DEPTH) fail('nesting too deep');
    let value: Json;
    const c = text[i];
    if (c === '{') value = readObject(path, depth);
    else if (c === '[') value = readArray(path, depth);
    else if (c === '"') value = readString();
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) value = readNumber();
    else value = readLiteral();
    spans.set(path, { start: keyStart ?? start, end: i });
    return value;
  };

  const readObject = (path: string, depth: number): JsonObject => {
    i++; // {
    const out: JsonObject = {};
    const seen = new Map<string, number>();
    skipSpace();
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      skipSpace();
      if (text[i] !== '"')
        fail(text[i] === '}' ? 'trailing comma before "}"' : `expected a quoted key but found ${describe(i)}`);
      const keyStart = i;
      const key = readString();
      const keyEnd = i;
      expect(':', '":"');
      const childPath = keyPath(path, key);
      const previous = seen.get(key);
      if (previous !== undefined) {
        duplicates.push({
          severity: 'error',
          path: childPath,
          message: `duplicate key "${key}" (line ${position(text, previous).line} has it too; only one can be kept)`,
          at: at(text, keyStart, keyEnd),
        });
      }
      seen.set(key, keyStart);
      const value = readValue(childPath, depth + 1, keyStart);
      // defineProperty: a key named "__proto__" must stay data, not replace the prototype.
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      skipSpace();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return out;
      }
      fail(`expected "," or "}" but found ${describe(i)}`);
    }
  };

  const readArray = (path: string, depth: number): Json[] => {
    i++; // [
    const out: Json[] = [];
    skipSpace();
    if (text[i] === ']') {
      i++;
      return out;
    }
    for (;;) {
      skipSpace();
      if (text[i] === ']') fail('trailing comma before "]"');
      out.push(readValue(indexPath(path, out.length), depth + 1, null));
      skipSpace();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return out;
      }
      fail(`expected "," or "]" but found ${describe(i)}`);
    }
  };

  try {
    const value = readValue('', 0, null);
    skipSpace();
    if (i < text.length) fail(`unexpected ${describe(i)} after the end of the JSON value`);
    return { ok: true, value, spans, duplicates };
  } catch (err) {
    if (!(err instanceof SyntaxFailure)) throw err;
    const where = position(text, err.offset);
    return {
      ok: false,
      issue: {
        severity: 'error',
        path: '',
        message: `invalid JSON at line ${where.line}, column ${where.column}: ${err.message}`,
        at: { offset: err.offset, end: Math.min(err.offset + 1, text.length), ...where },
      },
    };
  }
}
