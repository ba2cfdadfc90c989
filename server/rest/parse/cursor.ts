import type { Field, JsonStep } from '../ast.ts';

/** Thrown by the scanners; the caller wraps it into a PGRST100 naming the parameter. */
export class SyntaxError_ extends Error {}

/** A position in one query parameter's text, with the small scanners every grammar shares. */
export class Cursor {
  pos = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(n = 0): string {
    return this.text[this.pos + n] ?? '';
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  eat(s: string): boolean {
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }

  expect(s: string): void {
    if (!this.eat(s)) this.fail(`"${s}"`);
  }

  fail(expecting: string): never {
    const found = this.done ? 'end of input' : `"${this.peek()}"`;
    throw new SyntaxError_(`unexpected ${found} expecting ${expecting}`);
  }

  /** A bare name (letters, digits, `_`, `$`, space) or a double-quoted one. */
  name(what = 'field name (* or [a..z0..9_$])'): string {
    if (this.peek() === '"') return this.quoted();
    const start = this.pos;
    while (!this.done && /[\p{L}\p{N}_$ ]/u.test(this.peek())) this.pos++;
    const value = this.text.slice(start, this.pos).trim();
    if (value === '') this.fail(what);
    return value;
  }

  /** `"..."` with `\"` and `\\` escapes. */
  quoted(): string {
    this.expect('"');
    let out = '';
    while (!this.done && this.peek() !== '"') {
      if (this.peek() === '\\' && this.pos + 1 < this.text.length) this.pos++;
      out += this.peek();
      this.pos++;
    }
    this.expect('"');
    return out;
  }

  /** `name` followed by any number of `->key` / `->>key` steps. */
  field(): Field {
    const name = this.name();
    const path: JsonStep[] = [];
    for (;;) {
      let arrow: JsonStep['arrow'];
      if (this.startsWith('->>')) arrow = '->>';
      else if (this.startsWith('->')) arrow = '->';
      else break;
      this.pos += arrow.length;
      const key = this.peek() === '-' ? `-${(this.pos++, this.name('JSON key'))}` : this.name('JSON key');
      path.push({ arrow, key });
    }
    return { name, path };
  }
}

/** Splits `a,b(c,d),"e,f"` at top-level commas, keeping quotes and parentheses intact. */
export function splitTopLevel(text: string, separator = ','): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inQuote = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inQuote) {
      if (ch === '\\') i++;
      else if (ch === '"') inQuote = false;
    } else if (ch === '"') inQuote = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw new SyntaxError_('unexpected ")" without a matching "("');
  }
  if (inQuote) throw new SyntaxError_('unexpected end of input expecting closing quote "\\""');
  if (depth !== 0) throw new SyntaxError_('unexpected end of input expecting ")"');
  parts.push(text.slice(start));
  return parts;
}
