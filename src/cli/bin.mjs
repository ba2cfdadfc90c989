#!/usr/bin/env node
// `chartroom`: the command runs from TypeScript source through tsx (a dependency), so
// `npx chartroom ...` works wherever the package is installed.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('./main.ts');
process.exitCode = await run(process.argv.slice(2));
