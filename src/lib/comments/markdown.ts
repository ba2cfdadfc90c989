/**
 * A comment's Markdown, read into a small tree the view renders as React elements: never
 * HTML. Paragraphs (blank lines), line breaks, `code`, **strong**, *emphasis* or
 * _emphasis_, and [links](https://…) to http(s) and mailto addresses only; anything else
 * (HTML tags included) stays literal text.
 */

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong'; children: Inline[] }
  | { kind: 'em'; children: Inline[] }
  | { kind: 'link'; href: string; children: Inline[] }
  | { kind: 'br' };

export type Block = { kind: 'p'; children: Inline[] };

const SAFE_HREF = /^(https?:\/\/|mailto:)[^\s<>"']+$/i;

/** A link target the page may follow: http(s) or mailto, nothing else (no javascript:, no data:). */
export const safeHref = (href: string): string | null => (SAFE_HREF.test(href) ? href : null);

const PATTERNS: { re: RegExp; make: (m: RegExpExecArray) => Inline | null }[] = [
  { re: /`([^`\n]+)`/, make: (m) => ({ kind: 'code', text: m[1] ?? '' }) },
  {
    re: /\[([^\]\n]+)\]\(([^)\s]+)\)/,
    make: (m) => {
      const href = safeHref(m[2] ?? '');
      return href ? { kind: 'link', href, children: inline(m[1] ?? '') } : null;
    },
  },
  { re: /\*\*([^*\n]+)\*\*/, make: (m) => ({ kind: 'strong', children: inline(m[1] ?? '') }) },
  {
    re: /(?:\*([^*\n]+)\*|(?<!\w)_([^_\n]+)_(?!\w))/,
    make: (m) => ({ kind: 'em', children: inline(m[1] ?? m[2] ?? '') }),
  },
];

/** One line's inline marks, earliest match first. */
export function inline(text: string): Inline[] {
  let best: { at: number; length: number; node: Inline } | null = null;
  for (const { re, make } of PATTERNS) {
    const m = re.exec(text);
    if (!m) continue;
    const node = make(m);
    if (node && (best === null || m.index < best.at)) best = { at: m.index, length: m[0].length, node };
  }
  if (!best) return text === '' ? [] : [{ kind: 'text', text }];
  const before = text.slice(0, best.at);
  return [
    ...(before ? [{ kind: 'text' as const, text: before }] : []),
    best.node,
    ...inline(text.slice(best.at + best.length)),
  ];
}

export function markdown(body: string): Block[] {
  return body
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => ({
      kind: 'p' as const,
      children: p
        .split('\n')
        .flatMap((line, i): Inline[] => (i === 0 ? inline(line) : [{ kind: 'br' }, ...inline(line)])),
    }));
}
