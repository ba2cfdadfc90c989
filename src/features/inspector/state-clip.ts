import type { StateClip } from '../../lib/inspector/clipboard.ts';

/** Where a copied state waits: this browser's storage, so it pastes into any machine open here. */
const KEY = 'chartroom:state-clip';

/** Keeps a copied state; false when the browser refuses to store it. */
export function writeClip(clip: StateClip): boolean {
  try {
    window.localStorage.setItem(KEY, JSON.stringify(clip));
    return true;
  } catch {
    return false;
  }
}

/** The copied state, or null when there is none or what is stored is not a clip. */
export function readClip(): StateClip | null {
  try {
    const raw = window.localStorage.getItem(KEY);
    const value: unknown = raw === null ? null : JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return null;
    const { states, transitions } = value as Partial<StateClip>;
    return Array.isArray(states) && states.length > 0 && Array.isArray(transitions) ? { states, transitions } : null;
  } catch {
    return null;
  }
}
