import type { ImportMapData } from './protocol.ts';

/**
 * Deno import specifiers, translated for Node. A function written for hosted Supabase
 * imports `npm:pkg@2/sub`, `jsr:@supabase/pkg@2` or `https://esm.sh/pkg@2`; on Node those
 * name the package installed in node_modules, so the version range is dropped and the
 * project's installed version is what runs. Pure functions, used by the resolve hook.
 */

/** An empty module: type-only imports such as `jsr:@supabase/functions-js/edge-runtime.d.ts`. */
export const EMPTY_MODULE = 'data:text/javascript,export%20%7B%7D%3B';

/** `@scope/name@range/sub/path` or `name@range/sub/path` -> `@scope/name/sub/path`. */
function stripVersion(spec: string): string | null {
  const match = /^(@[^/@]+\/[^/@]+|[^/@][^/@]*)(?:@[^/]*)?(\/.*)?$/.exec(spec);
  if (!match) return null;
  return `${match[1]}${match[2] ?? ''}`;
}

export class UnsupportedSpecifierError extends Error {}

/**
 * The Node specifier for a Deno one, `null` when the specifier is already Node's
 * (relative, absolute, bare, node:, file:, data:). Throws for remote and registry
 * specifiers that have no local package.
 */
export function toNodeSpecifier(specifier: string): string | null {
  if (/\.d\.(m|c)?ts$/.test(specifier.split('?')[0] ?? specifier) && /^(npm|jsr|https?):/.test(specifier))
    return EMPTY_MODULE;
  if (specifier.startsWith('npm:')) {
    const mapped = stripVersion(specifier.slice(4).replace(/^\/+/, ''));
    if (!mapped) throw new UnsupportedSpecifierError(`invalid npm specifier: ${specifier}`);
    return mapped;
  }
  if (specifier.startsWith('jsr:')) {
    const rest = specifier.slice(4).replace(/^\/+/, '');
    // Supabase's own JSR packages are published to npm under the same names.
    if (rest.startsWith('@supabase/')) return stripVersion(rest);
    throw new UnsupportedSpecifierError(
      `${specifier}: only jsr:@supabase/* packages are available in the embedded backend; use an npm: import`,
    );
  }
  if (/^https?:\/\/esm\.sh\//.test(specifier)) {
    const path = new URL(specifier).pathname.replace(/^\/+/, '').replace(/^v\d+\//, '');
    const mapped = stripVersion(path);
    if (!mapped) throw new UnsupportedSpecifierError(`invalid esm.sh URL: ${specifier}`);
    return mapped;
  }
  if (/^https?:\/\//.test(specifier)) {
    throw new UnsupportedSpecifierError(
      `${specifier}: remote imports are not fetched by the embedded backend; use an npm: import`,
    );
  }
  return null;
}

/**
 * Applies a Deno import map: an exact key wins, else the longest key ending in `/` that
 * prefixes the specifier. Relative targets resolve against the map's own URL.
 */
export function applyImportMap(specifier: string, map: ImportMapData | null): string | null {
  if (!map) return null;
  let target: string | undefined = map.imports[specifier];
  if (target === undefined) {
    let best = '';
    for (const key of Object.keys(map.imports)) {
      if (key.endsWith('/') && specifier.startsWith(key) && key.length > best.length) best = key;
    }
    if (!best) return null;
    target = `${map.imports[best]}${specifier.slice(best.length)}`;
  }
  if (target.startsWith('./') || target.startsWith('../') || target.startsWith('/'))
    return new URL(target, map.baseUrl).href;
  return target;
}
