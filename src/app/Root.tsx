import { StrictMode } from 'react';
import { SessionContext } from '../features/session/session-context.ts';
import { App } from './App.tsx';
import { inspector } from './inspect.ts';
import type { sessionLogic } from './session.ts';

/** Providers around the app; the logic comes in already wired to real or fake adapters. */
export function Root({ session }: { session: ReturnType<typeof sessionLogic> }) {
  return (
    <StrictMode>
      <SessionContext.Provider logic={session} options={{ inspect: inspector() }}>
        <App />
      </SessionContext.Provider>
    </StrictMode>
  );
}
