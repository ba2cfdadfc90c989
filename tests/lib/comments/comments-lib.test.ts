import { describe, expect, it } from 'vitest';
import { inline, markdown, safeHref } from '../../../src/lib/comments/markdown.ts';
import {
  anchorOfSelection,
  mentionedIn,
  mentionQuery,
  placeAnchor,
  unread,
} from '../../../src/lib/comments/threads.ts';
import { counterIds, importXState } from '../../../src/lib/model/index.ts';
import type { Comment } from '../../../src/lib/ports/comments.ts';

/** The Comments panel's pure parts: safe Markdown, anchors on the definition, unread counts, mentions. */

describe('comment Markdown', () => {
  it('reads paragraphs, breaks, code, strong, emphasis and safe links', () => {
    expect(markdown('Why **three** `retries`?\nSee [spec](https://x.dev/a).\n\n_Later_ *maybe*')).toEqual([
      {
        kind: 'p',
        children: [
          { kind: 'text', text: 'Why ' },
          { kind: 'strong', children: [{ kind: 'text', text: 'three' }] },
          { kind: 'text', text: ' ' },
          { kind: 'code', text: 'retries' },
          { kind: 'text', text: '?' },
          { kind: 'br' },
          { kind: 'text', text: 'See ' },
          { kind: 'link', href: 'https://x.dev/a', children: [{ kind: 'text', text: 'spec' }] },
          { kind: 'text', text: '.' },
        ],
      },
      {
        kind: 'p',
        children: [
          { kind: 'em', children: [{ kind: 'text', text: 'Later' }] },
          { kind: 'text', text: ' ' },
          { kind: 'em', children: [{ kind: 'text', text: 'maybe' }] },
        ],
      },
    ]);
  });

  it('keeps HTML and unsafe links as plain text', () => {
    expect(inline('<script>alert(1)</script>')).toEqual([{ kind: 'text', text: '<script>alert(1)</script>' }]);
    expect(inline('[x](javascript:alert(1))')).toEqual([{ kind: 'text', text: '[x](javascript:alert(1))' }]);
    expect(safeHref('data:text/html,hi')).toBeNull();
    expect(safeHref('mailto:ada@example.test')).toBe('mailto:ada@example.test');
    // Underscores inside a word are not emphasis.
    expect(inline('snake_case_name')).toEqual([{ kind: 'text', text: 'snake_case_name' }]);
  });
});

describe('anchors, unread and mentions', () => {
  const def = importXState(
    {
      id: 'c',
      initial: 'cart',
      states: { cart: { on: { PAY: 'paying' } }, paying: { initial: 'card', states: { card: {} } } },
    },
    { ids: counterIds('s') },
  );
  const id = (key: string) => Object.values(def.states).find((s) => s.key === key)?.id ?? '';
  const pay = Object.values(def.transitions)[0]?.id ?? '';

  it('places a thread on a state by its path, a transition by its id, and marks a deleted one orphaned', () => {
    expect(placeAnchor(def, { kind: 'state', value: id('card') })).toEqual({
      key: 'paying.card',
      label: 'state paying.card',
      orphaned: false,
    });
    expect(placeAnchor(def, { kind: 'transition', value: pay })).toEqual({
      key: pay,
      label: 'PAY from cart',
      orphaned: false,
    });
    expect(placeAnchor(def, { kind: 'state', value: 'gone' })).toMatchObject({ key: null, orphaned: true });
    expect(anchorOfSelection(def, [id('cart')])).toEqual({ kind: 'state', value: id('cart') });
    expect(anchorOfSelection(def, [pay])).toEqual({ kind: 'transition', value: pay });
    expect(anchorOfSelection(def, [id('cart'), pay])).toBeNull();
    expect(anchorOfSelection(def, [def.root])).toBeNull();
  });

  it('counts threads with news from others since seenAt, and new mentions', () => {
    const c = (threadId: string, author: string, createdAt: string, mentions: string[] = []): Comment => ({
      id: `${threadId}-${createdAt}`,
      threadId,
      body: 'x',
      mentions,
      author,
      createdAt,
      editedAt: null,
      deletedAt: null,
    });
    const comments = [
      c('t1', 'bo', '01', ['me']),
      c('t1', 'bo', '03', ['me']),
      c('t2', 'cy', '04'),
      c('t3', 'me', '05'),
    ];
    expect(unread(comments, 'me', '02')).toEqual({ threads: 2, mentions: 1 });
    expect(unread(comments, 'me', null)).toEqual({ threads: 0, mentions: 0 });
  });

  it('finds the members a body mentions, longest names first, and the @word being typed', () => {
    const members = [
      { userId: 'a', name: 'Ada' },
      { userId: 'al', name: 'Ada Lovelace' },
      { userId: 'b', name: 'Bo' },
    ];
    expect(mentionedIn('@Ada Lovelace, ask @Bo', members)).toEqual(['al', 'b']);
    expect(mentionedIn('no one here, ada', members)).toEqual([]);
    expect(mentionQuery('hi @Bo')).toBe('Bo');
    expect(mentionQuery('hi @')).toBe('');
    expect(mentionQuery('mail ada@x')).toBeNull();
  });
});
