import { useSyncExternalStore } from 'react';
import { parseRoute, type Route } from '../../lib/route.ts';

/**
 * A tiny router on the History API. The URL is the state; `navigate` pushes (or replaces)
 * and tells subscribers, popstate covers back and forward. Same-origin links anywhere in
 * the page are followed without a reload by one click listener (see `followLinks`).
 */

const NAVIGATED = 'chartroom:navigated';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATED, onChange);
  };
}

const currentPath = () => window.location.pathname;

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The current route; re-renders only when the path changes. */
export function useRoute(): Route {
  const path = useSyncExternalStore(subscribe, currentPath, currentPath);
  return parseRoute(path);
}

/** Calls `onRoute` with the current route and again on every change of path. Returns the remover. */
export function watchRoute(onRoute: (route: Route) => void): () => void {
  let path = currentPath();
  onRoute(parseRoute(path));
  return subscribe(() => {
    if (currentPath() === path) return;
    path = currentPath();
    onRoute(parseRoute(path));
  });
}

/** Turns clicks on same-origin links into History navigation. Returns the remover. */
export function followLinks(root: Document = document): () => void {
  const onClick = (event: MouseEvent) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    const anchor = event.target instanceof Element ? event.target.closest('a') : null;
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  };
  root.addEventListener('click', onClick);
  return () => root.removeEventListener('click', onClick);
}
