import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

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
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    globalSetup: ['tests/setup/global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: run two files at once; each talks to the one shared backend.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
