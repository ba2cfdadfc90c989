import { useEffect } from 'react';

/**
 * The Tests panel's marks on the diagram, set on the drawn states and transitions
 * themselves (the diagram keeps `data-state-path` and `data-transition-id` on them):
 * `data-covered="true|false"` while coverage is on, and `data-played="true"` on the
 * states of the step being played. Redrawn nodes (an edit, a pan that draws more) are
 * marked again as they appear; everything is taken off when the panel goes.
 */
export function useDiagramMarks(
  scope: () => HTMLElement | null,
  covered: { states: ReadonlySet<string>; transitions: ReadonlySet<string> } | null,
  played: ReadonlySet<string>,
): void {
  useEffect(() => {
    const root = scope();
    if (!root) return;
    const mark = () => {
      for (const el of root.querySelectorAll<Element>('[data-state-path]')) {
        const path = el.getAttribute('data-state-path') ?? '';
        setAttr(el, 'data-covered', covered ? String(covered.states.has(path)) : null);
        setAttr(el, 'data-played', played.has(path) ? 'true' : null);
      }
      for (const el of root.querySelectorAll<Element>('[data-transition-id]')) {
        const id = el.getAttribute('data-transition-id') ?? '';
        setAttr(el, 'data-covered', covered ? String(covered.transitions.has(id)) : null);
      }
    };
    mark();
    const observer = new MutationObserver(mark);
    observer.observe(root, { childList: true, subtree: true });
    return () => {
      observer.disconnect();
      for (const el of root.querySelectorAll('[data-covered], [data-played]')) {
        el.removeAttribute('data-covered');
        el.removeAttribute('data-played');
      }
    };
  }, [scope, covered, played]);
}

function setAttr(el: Element, name: string, value: string | null) {
  if (value === null) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}
