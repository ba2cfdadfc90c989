/**
 * Node module customization hooks for one function's worker (registered with
 * `module.register`, so this file runs on Node's hooks thread). They run before tsx's
 * own hooks: import map first, then Deno specifiers mapped to installed packages. A
 * package the function's directory cannot see is looked up again from the project.
 */
import type { ImportMapData } from './protocol.ts';
import { applyImportMap, toNodeSpecifier } from './specifiers.ts';

interface HookData {
  importMap: ImportMapData | null;
  fallbackParentUrl: string;
}

interface ResolveContext {
  parentURL?: string;
  conditions: string[];
  importAttributes?: Record<string, string>;
}

interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}

type NextResolve = (specifier: string, context?: ResolveContext) => Promise<ResolveResult>;

let data: HookData = { importMap: null, fallbackParentUrl: import.meta.url };

export function initialize(input: HookData): void {
  data = input;
}

function isBare(specifier: string): boolean {
  return !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(specifier);
}

/**
 * Function source is always ESM in Deno, whatever package.json (if any) sits above it;
 * without this a functions directory outside a `"type": "module"` package loads as CJS.
 */
function asDenoModule(result: ResolveResult): ResolveResult {
  const { url } = result;
  if (url.startsWith('file:') && !url.includes('/node_modules/') && /\.(ts|tsx|js|jsx)$/.test(url))
    return { ...result, format: 'module' };
  return result;
}

export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<ResolveResult> {
  const mapped = applyImportMap(specifier, data.importMap) ?? specifier;
  const nodeSpecifier = toNodeSpecifier(mapped) ?? mapped;
  if (nodeSpecifier.startsWith('data:')) return { url: nodeSpecifier, shortCircuit: true };
  try {
    return asDenoModule(await next(nodeSpecifier, context));
  } catch (error) {
    if (!isBare(nodeSpecifier) || context.parentURL === data.fallbackParentUrl) throw error;
    // A functions directory outside the project (tests, --functions-dir) still gets the
    // project's node_modules, as every function on hosted gets its npm packages.
    return next(nodeSpecifier, { ...context, parentURL: data.fallbackParentUrl });
  }
}
