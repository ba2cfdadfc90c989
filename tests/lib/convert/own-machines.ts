import fs from 'node:fs';
import path from 'node:path';
import type { MachineLike } from '../../../src/lib/model/index.ts';

/** Chartroom's own machines (every *.machine.ts under machines/): every exported machine object, with its file. */
export async function ownMachines(): Promise<{ file: string; name: string; machine: MachineLike }[]> {
  const dir = path.resolve('machines');
  const files = fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.machine.ts'))
    .sort();
  const out: { file: string; name: string; machine: MachineLike }[] = [];
  for (const file of files) {
    const mod = (await import(path.join(dir, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === 'object' && value !== null && 'config' in value && 'root' in value)
        out.push({ file, name, machine: value });
    }
  }
  return out;
}
