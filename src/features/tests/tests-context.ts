import { createContext, useContext } from 'react';
import type { testPlaybackMachine } from '../../../machines/test-playback.machine.ts';
import type { testsMachine } from '../../../machines/tests.machine.ts';

/**
 * The Tests panel's machine, wired to its adapters by the app (src/app/tests.ts) and put
 * in context once; each open machine's panel starts its own actor from it. Without a
 * provider (fixtures that don't test the panel) the panel does not show.
 */
export const TestsLogicContext = createContext<typeof testsMachine | null>(null);
export const useTestsLogic = () => useContext(TestsLogicContext);

/** Test paths played for the room (machines/test-playback.machine.ts); without it, plays stay local. */
export const TestPlaybackLogicContext = createContext<typeof testPlaybackMachine | null>(null);
export const useTestPlaybackLogic = () => useContext(TestPlaybackLogicContext);
