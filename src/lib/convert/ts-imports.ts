import type ts from 'typescript';
import { MAX_SOURCE } from './issues.ts';
import { moduleScope, type ModuleScope } from './ts-scope.ts';
import { parse, syntaxErrors } from './ts-syntax.ts';

/**
 * Gives the source of a module another file imports (`specifier` as written there, `fromPath`
 * that file's path), or null when it cannot: the importer then reads helpers and constants
 * imported from it. Without one (the browser), what comes from another file is left out.
 */
export type ModuleResolver = (specifier: string, fromPath: string) => { path: string; text: string } | null;

/** A top-level function or constant of another file, and that file's top level. */
export interface Imported {
  mod: ModuleScope;
  fn?: ts.FunctionLikeDeclaration;
  init?: ts.Expression;
}

/** The top levels of the files a machine file imports, each read once, and lookups in them. */
export class ImportedModules {
  /** Files read, by path (null: could not be read). */
  private readonly modules = new Map<string, ModuleScope | null>();

  constructor(private readonly resolve: ModuleResolver | null) {}

  /** A top-level function or constant named `name`: in `mod`, else in the module `mod` imports it from. */
  lookUp(mod: ModuleScope, name: string): Imported | null {
    const local = mod.functions.get(name);
    if (local) return { mod, fn: local };
    const init = mod.consts.get(name);
    if (init) return { mod, init };
    const imported = mod.imports.get(name);
    if (!imported || imported.name === null) return null;
    const from = this.module(mod, imported.from);
    if (!from) return null;
    const fn = from.functions.get(imported.name);
    if (fn) return { mod: from, fn };
    const constant = from.consts.get(imported.name);
    return constant ? { mod: from, init: constant } : null;
  }

  /** The top level of a module `mod` imports, read once; null without a resolver or a readable file. */
  private module(mod: ModuleScope, specifier: string): ModuleScope | null {
    if (!this.resolve) return null;
    const found = this.resolve(specifier, mod.path);
    if (!found) return null;
    if (this.modules.has(found.path)) return this.modules.get(found.path) ?? null;
    let read: ModuleScope | null = null;
    if (found.text.length <= MAX_SOURCE) {
      const file = parse(found.text, found.path);
      if (syntaxErrors(file).length === 0) read = moduleScope(file, found.path);
    }
    this.modules.set(found.path, read);
    return read;
  }
}
