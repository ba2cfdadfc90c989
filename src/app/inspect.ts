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

/** Forwards inspection events to the inspector once it has loaded, in order, none lost. */
function deferredInspector(): Observer<InspectionEvent> {
  const early: InspectionEvent[] = [];
  let target: Observer<InspectionEvent> | null = null;
  import('@statelyai/inspect')
    .then(({ createBrowserInspector }) => {
      target = createBrowserInspector({ autoStart: true }).inspect;
      for (const event of early.splice(0)) target.next?.(event);
    })
    .catch((error: unknown) => console.error('chartroom: the inspector could not be loaded', error));
  return {
    next: (event) => {
      if (target) target.next?.(event);
      else early.push(event);
    },
  };
}

/** The inspection observer to pass as `createActor(logic, { inspect })`, or undefined when off. */
export function inspector(): Observer<InspectionEvent> | undefined {
  if (!decided) {
    decided = true;
    if (switchedOn()) observer = deferredInspector();
  }
  return observer;
}
