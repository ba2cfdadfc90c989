import type { ReactNode } from 'react';
import { markdown, type Inline } from '../../lib/comments/markdown.ts';

/** Inline marks as React elements: text stays text, so no HTML in a comment ever reaches the page. */
function inlines(nodes: readonly Inline[]): ReactNode[] {
  return nodes.map((n, i) => {
    switch (n.kind) {
      case 'text':
        return n.text;
      case 'code':
        return <code key={i}>{n.text}</code>;
      case 'strong':
        return <strong key={i}>{inlines(n.children)}</strong>;
      case 'em':
        return <em key={i}>{inlines(n.children)}</em>;
      case 'br':
        return <br key={i} />;
      case 'link':
        return (
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer">
            {inlines(n.children)}
          </a>
        );
    }
  });
}

/** A comment's body as safe Markdown (src/lib/comments/markdown.ts). */
export function Markdown({ body }: { body: string }) {
  return (
    <div className="cm-body">
      {markdown(body).map((b, i) => (
        <p key={i}>{inlines(b.children)}</p>
      ))}
    </div>
  );
}
