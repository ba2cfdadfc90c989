import { afterAll, vi } from 'vitest';

// The unit project shares one module cache per worker (`isolate: false`): a file that
// turned fake timers on must not hand them to the next file the worker runs.
afterAll(() => {
  vi.useRealTimers();
});
