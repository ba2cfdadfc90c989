import { createBrowserInspector } from '@statelyai/inspect';
import type { InspectionEvent, Observer } from 'xstate';

/**
 * The development switch for watching the app's own actors live: `?inspect` in the URL
 * or `localStorage['chartroom:inspect'] = '1'` opens Stately's browser inspector, and
 * every actor created with `{ inspect: inspector() }` reports to it. Off by default, so
 * production pays nothing but this check.
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

/** The inspection observer to pass as `createActor(logic, { inspect })`, or undefined when off. */
export function inspector(): Observer<InspectionEvent> | undefined {
  if (!decided) {
    decided = true;
    if (switchedOn()) observer = createBrowserInspector({ autoStart: true }).inspect;
  }
  return observer;
}
