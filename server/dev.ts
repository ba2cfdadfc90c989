import path from 'node:path';
import { startBackend } from './backend.ts';
import { backendOptionsFromArgs, describeBackend, stopOnSignals } from './main.ts';
import { explainListenError, injectRuntimeConfig } from './start.ts';

/** `npm run dev`: the embedded backend plus Vite's dev server with hot reload. */
async function main(): Promise<void> {
  const { appPort, supabaseDir, functionsDir, ...options } = backendOptionsFromArgs(process.argv.slice(2));
  const backend = await startBackend({
    ...options,
    ...(supabaseDir ? { supabaseDir } : {}),
    ...(functionsDir ? { functionsDir } : {}),
  });
  const stoppers = [() => backend.stop()];
  stopOnSignals(stoppers);
  const runtime = { supabaseUrl: backend.url, supabaseAnonKey: backend.anonKey };
  try {
    const { createServer } = await import('vite');
    const vite = await createServer({
      configFile: path.resolve('vite.config.ts'),
      server: { host: '127.0.0.1', port: appPort, strictPort: true },
      // The same runtime config npm start injects, so the app finds a backend on any port.
      plugins: [
        { name: 'chartroom-runtime-config', transformIndexHtml: (html: string) => injectRuntimeConfig(html, runtime) },
      ],
    });
    stoppers.unshift(() => vite.close());
    await vite.listen();
    console.log(describeBackend(backend));
    console.log('');
    vite.printUrls();
  } catch (error) {
    // Don't leave PostgreSQL running behind a failed start.
    for (const stop of stoppers) await stop().catch(() => undefined);
    throw explainListenError(error, appPort, '--app-port');
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
