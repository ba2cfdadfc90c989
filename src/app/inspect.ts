import type { InspectionEvent, Observer } from 'xstate';

/**
 * The development switch for watching the app's own actors live: `?inspect` in the URL
 * or `localStorage['chartroom:inspect'] = '1'` opens Stately's browser inspector, and
 * every actor created with `{ inspect: inspector() }` reports to it. Off by default; the
 * inspector's code is loaded only when switched on, so it costs the bundle nothing.
 */

let observer: Observer<InspectionEvent> | undefined;
let decided = false;

function switchedOn(): boolean {
  if (typeof window === 'undefined') return false;
  try {
    if (new URLSearchParams(window.location.search).has('inspect')) return true;
    return window.localStorage.getItem('chartroom:inspect') === '1';
  } catch {
    // Storage can be blocked (privacy settings); the URL switch still works.
    return false;
  }
}

/** Events kept while the inspector loads; past this the oldest are dropped. */
const EARLY_LIMIT = 2000;

/**
 * Forwards inspection events to the inspector once it has loaded, in order. The inspector
 * is optional and lives on stately.ai: when it cannot load (offline, blocked popup) or
 * fails while running, it is switched off with one console line and the app carries on;
 * an inspector's error never reaches the actor that reported the event.
 */
export function deferredInspector(
  load: () => Promise<Observer<InspectionEvent>>,
  warn: (message: string) => void = console.warn,
): Observer<InspectionEvent> {
  let early: InspectionEvent[] | null = [];
  let target: Observer<InspectionEvent> | null = null;
  const off = (why: unknown): void => {
    if (early === null && target === null) return;
    early = null;
    target = null;
    warn(
      `chartroom: the inspector is unavailable (${why instanceof Error ? why.message : String(why)}); the app works without it`,
    );
  };
  load().then((inspector) => {
    if (early === null) return;
    target = inspector;
    const queued = early;
    early = [];
    try {
      for (const event of queued) inspector.next?.(event);
    } catch (error) {
      off(error);
    }
  }, off);
  return {
    next: (event) => {
      if (target) {
        try {
          target.next?.(event);
        } catch (error) {
          off(error);
        }
      } else if (early) {
        early.push(event);
        if (early.length > EARLY_LIMIT) early.shift();
      }
    },
  };
}

/** Stately's browser inspector, loaded on demand; it opens stately.ai in a new window. */
const loadStately = (): Promise<Observer<InspectionEvent>> =>
  import('@statelyai/inspect').then(
    ({ createBrowserInspector }) => createBrowserInspector({ autoStart: true }).inspect,
  );

/** The inspection observer to pass as `createActor(logic, { inspect })`, or undefined when off. */
export function inspector(): Observer<InspectionEvent> | undefined {
  if (!decided) {
    decided = true;
    if (switchedOn()) observer = deferredInspector(loadStately);
  }
  return observer;
}
