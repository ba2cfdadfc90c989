import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

/** Test folders of pure code: they share a worker's module cache (see `projects` below). */
const UNIT = ['tests/lib', 'tests/machines', 'tests/lint'];

export default defineConfig({
  plugins: [react()],
  server: { host: '127.0.0.1', port: 5173, strictPort: true },
  preview: { host: '127.0.0.1', port: 5173, strictPort: true },
  build: {
    target: 'es2022',
    sourcemap: true,
    // The worker bundles elkjs (1.4 MB, loaded only by the layout worker): no size warning for it,
    // and no plugin-timing report on every build.
    chunkSizeWarningLimit: 1600,
    rolldownOptions: { checks: { pluginTimings: false } },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: run two files at once, whichever project they belong to.
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        // Pure code (the model, the machines, the lint rules): no backend, and one module
        // cache per worker instead of a fresh import of xstate and the model for each file.
        extends: true,
        test: {
          name: 'unit',
          include: UNIT.map((dir) => `${dir}/**/*.test.{ts,tsx}`),
          isolate: false,
          setupFiles: ['tests/setup/unit.ts'],
        },
      },
      {
        // Everything that talks to the one real backend (PostgreSQL + gateway) started for the run.
        extends: true,
        test: {
          name: 'backend',
          include: ['tests/**/*.test.{ts,tsx}'],
          exclude: UNIT.map((dir) => `${dir}/**`),
          globalSetup: ['tests/setup/global.ts'],
        },
      },
    ],
  },
});
