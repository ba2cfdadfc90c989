import { keyPathOf } from '../model/tree.ts';
import type { MachineDefinition } from '../model/types.ts';
import type { Comment, CommentAnchor, CommentThread } from '../ports/comments.ts';

/**
 * What the Comments panel and the diagram's pins compute from the threads: where each
 * thread hangs on the definition shown (a state's dot path, a transition's id, or
 * orphaned when it is gone), which threads a filter keeps, what is unread, and which
 * members a comment mentions.
 */

/** A thread's anchor on the current definition: the pin's `data-comment-anchor` and a label, or orphaned. */
export interface PlacedAnchor {
  /** The state's dot path or the transition's id (null when orphaned or not on the diagram). */
  key: string | null;
  label: string;
  orphaned: boolean;
}

const eventName = (event: unknown): string => (typeof event === 'string' ? event : 'an automatic transition');

export function placeAnchor(definition: MachineDefinition | null, anchor: CommentAnchor): PlacedAnchor {
  switch (anchor.kind) {
    case 'state': {
      const state = definition?.states[anchor.value];
      if (!definition || !state) return { key: null, label: 'a state that was deleted', orphaned: true };
      const path = keyPathOf(definition, anchor.value).join('.');
      return path === ''
        ? { key: null, label: 'the machine', orphaned: false }
        : { key: path, label: `state ${path}`, orphaned: false };
    }
    case 'transition': {
      const t = definition?.transitions[anchor.value];
      if (!definition || !t) return { key: null, label: 'a transition that was deleted', orphaned: true };
      const from = keyPathOf(definition, t.source).join('.') || 'the machine';
      return { key: anchor.value, label: `${eventName(t.event)} from ${from}`, orphaned: false };
    }
    case 'point':
      return { key: null, label: `a point (${anchor.value})`, orphaned: false };
    case 'timeline':
      return { key: null, label: `timeline entry ${anchor.value}`, orphaned: false };
    case 'step':
      return { key: null, label: `simulation step ${anchor.value}`, orphaned: false };
  }
}

/** The anchor a selection names: the one state or transition selected, else null. */
export function anchorOfSelection(
  definition: MachineDefinition | null,
  selection: readonly string[],
): CommentAnchor | null {
  const [id] = selection;
  if (!definition || selection.length !== 1 || id === undefined) return null;
  if (definition.states[id]) return id === definition.root ? null : { kind: 'state', value: id };
  if (definition.transitions[id]) return { kind: 'transition', value: id };
  return null;
}

export interface ThreadFilter {
  show: 'open' | 'resolved';
  mentionsMe: boolean;
  /** Only threads this person wrote in (null: anyone). */
  person: string | null;
  userId: string;
}

export const commentsOf = (comments: readonly Comment[], threadId: string): Comment[] =>
  comments.filter((c) => c.threadId === threadId);

export function filterThreads(
  threads: readonly CommentThread[],
  comments: readonly Comment[],
  f: ThreadFilter,
): CommentThread[] {
  return threads.filter((t) => {
    if ((t.resolvedAt !== null) !== (f.show === 'resolved')) return false;
    const mine = commentsOf(comments, t.id);
    if (f.mentionsMe && !mine.some((c) => c.mentions.includes(f.userId))) return false;
    if (f.person !== null && !mine.some((c) => c.author === f.person)) return false;
    return true;
  });
}

/** Threads with a comment by someone else after `seenAt`, and comments after it that mention this person. */
export function unread(
  comments: readonly Comment[],
  userId: string,
  seenAt: string | null,
): { threads: number; mentions: number } {
  if (seenAt === null) return { threads: 0, mentions: 0 };
  const fresh = comments.filter((c) => c.author !== userId && c.createdAt > seenAt && c.deletedAt === null);
  return {
    threads: new Set(fresh.map((c) => c.threadId)).size,
    mentions: fresh.filter((c) => c.mentions.includes(userId)).length,
  };
}

/** The members a body mentions: each whose `@Name` it contains (longest names first, so `@Ada Lovelace` is not `@Ada`). */
export function mentionedIn(body: string, members: readonly { userId: string; name: string }[]): string[] {
  let rest = body;
  const found: string[] = [];
  for (const m of [...members].sort((a, b) => b.name.length - a.name.length)) {
    const tag = `@${m.name}`;
    if (m.name !== '' && rest.includes(tag)) {
      found.push(m.userId);
      rest = rest.split(tag).join(' ');
    }
  }
  return found;
}

/** The `@word` being typed at the end of `text` (for completion), or null. */
export function mentionQuery(text: string): string | null {
  const m = /(?:^|\s)@([^\s@]{0,40})$/.exec(text);
  return m ? (m[1] ?? '') : null;
}
