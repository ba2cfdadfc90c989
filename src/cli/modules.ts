import fs from 'node:fs';
import path from 'node:path';
import type { ModuleResolver } from '../lib/convert/ts-imports.ts';

/** The endings a relative import may leave off, tried in this order. */
const ENDINGS = ['', '.ts', '.tsx', '.mts', '.js', '.jsx', '.mjs', '/index.ts', '/index.js'];

/**
 * Reads a module a machine file imports from disk, so the TypeScript importer can follow a
 * helper or constant defined there (`...request({...})` from '../shared.ts'). Only relative
 * specifiers (a package is not the machine's own code); a `.js` specifier may name a `.ts`
 * file, as TypeScript allows. Null when no file is found or it cannot be read.
 */
export const readModule: ModuleResolver = (specifier, fromPath) => {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return null;
  const base = path.resolve(path.dirname(path.resolve(fromPath)), specifier);
  const candidates = ENDINGS.map((ending) => base + ending);
  if (/\.[cm]?js$/.test(base)) candidates.push(base.replace(/js$/, 'ts'));
  for (const file of candidates) {
    try {
      if (!fs.statSync(file).isFile()) continue;
      return { path: file, text: fs.readFileSync(file, 'utf8') };
    } catch {
      // Not this ending: try the next.
    }
  }
  return null;
};
