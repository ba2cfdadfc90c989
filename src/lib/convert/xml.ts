/**
 * A small, strict XML reader for SCXML: elements, attributes, text, comments, CDATA and
 * processing instructions, with the five predefined entities and character references.
 * Document type declarations are refused (no entity expansion, so no entity bombs). It
 * never recurses, so deep nesting cannot overflow the stack; errors carry the offset.
 */

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Offset of the `<` that opens the element. */
  start: number;
  end: number;
}

export type XmlNode = XmlElement | { text: string; start: number };

export class XmlError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'XmlError';
  }
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const SPACE = /[ \t\r\n]*/y;
const MAX_DEPTH = 1000;

function decode(raw: string, offset: number): string {
  return raw.replace(/&(#x[0-9A-Fa-f]+|#[0-9]+|[A-Za-z]+);|&/g, (whole, body: string | undefined, at: number) => {
    if (body === undefined) throw new XmlError('a bare "&" must be written &amp;', offset + at);
    if (body.startsWith('#')) {
      const code = body.startsWith('#x') ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        throw new XmlError(`invalid character reference ${whole}`, offset + at);
      return String.fromCodePoint(code);
    }
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    const v = Object.hasOwn(named, body) ? named[body] : undefined;
    if (v === undefined) throw new XmlError(`unknown entity &${body};`, offset + at);
    return v;
  });
}

export function parseXml(text: string): XmlElement {
  let i = 0;
  let root: XmlElement | null = null;
  const stack: XmlElement[] = [];
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(text);
    if (!m) throw new XmlError('expected a name', i);
    i = NAME.lastIndex;
    return m[0];
  };
  const space = (): void => {
    SPACE.lastIndex = i;
    SPACE.exec(text);
    i = SPACE.lastIndex;
  };
  const skipPast = (end: string, what: string): void => {
    const at = text.indexOf(end, i);
    if (at < 0) throw new XmlError(`unterminated ${what}`, i);
    i = at + end.length;
  };
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const textEnd = lt < 0 ? text.length : lt;
    if (textEnd > i) {
      const raw = text.slice(i, textEnd);
      const top = stack[stack.length - 1];
      if (top) top.children.push({ text: decode(raw, i), start: i });
      else if (raw.trim() !== '') throw new XmlError('text outside the root element', i);
      i = textEnd;
      continue;
    }
    if (text.startsWith('<!--', i)) {
      skipPast('-->', 'comment');
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      const top = stack[stack.length - 1];
      if (!top) throw new XmlError('CDATA outside the root element', i);
      const start = i + 9;
      skipPast(']]>', 'CDATA section');
      top.children.push({ text: text.slice(start, i - 3), start });
      continue;
    }
    if (text.startsWith('<?', i)) {
      skipPast('?>', 'processing instruction');
      continue;
    }
    if (text.startsWith('<!', i)) throw new XmlError('document type declarations are not supported', i);
    if (text.startsWith('</', i)) {
      const at = i;
      i += 2;
      const n = name();
      space();
      if (text[i] !== '>') throw new XmlError(`expected ">" to close </${n}>`, i);
      i++;
      const open = stack.pop();
      if (!open) throw new XmlError(`</${n}> closes nothing`, at);
      if (open.name !== n) throw new XmlError(`</${n}> closes <${open.name}>`, at);
      open.end = i;
      continue;
    }
    // An element.
    const start = i;
    i++;
    const el: XmlElement = { name: name(), attrs: {}, children: [], start, end: start };
    for (;;) {
      const before = i;
      space();
      if (text.startsWith('/>', i)) {
        i += 2;
        el.end = i;
        break;
      }
      if (text[i] === '>') {
        i++;
        break;
      }
      if (i === before) throw new XmlError(`expected a space, ">" or "/>" in <${el.name}>`, i);
      const attr = name();
      space();
      if (text[i] !== '=') throw new XmlError(`expected "=" after ${attr}`, i);
      i++;
      space();
      const quote = text[i];
      if (quote !== '"' && quote !== "'") throw new XmlError(`the value of ${attr} must be quoted`, i);
      const end = text.indexOf(quote, i + 1);
      if (end < 0) throw new XmlError(`unterminated value of ${attr}`, i);
      const raw = text.slice(i + 1, end);
      if (raw.includes('<')) throw new XmlError(`"<" in the value of ${attr}`, i);
      if (Object.hasOwn(el.attrs, attr)) throw new XmlError(`duplicate attribute ${attr}`, i);
      el.attrs[attr] = decode(raw, i + 1);
      i = end + 1;
    }
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else if (root) throw new XmlError('more than one root element', start);
    else root = el;
    if (el.end === start) {
      if (stack.length >= MAX_DEPTH) throw new XmlError('elements are nested too deeply', start);
      stack.push(el);
    }
  }
  const open = stack[stack.length - 1];
  if (open) throw new XmlError(`<${open.name}> is never closed`, open.start);
  if (!root) throw new XmlError('no root element', 0);
  return root;
}

/** Text safe inside a double-quoted attribute (line breaks kept as references, which XML would normalise away). */
export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

/** Child elements only, text dropped. */
export function elements(el: XmlElement): XmlElement[] {
  return el.children.filter((c): c is XmlElement => 'name' in c);
}
