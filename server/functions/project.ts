import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'smol-toml';
import type { ImportMapData } from './protocol.ts';

/**
 * What the Supabase CLI reads about functions from a project: `[functions.<name>]` in
 * config.toml (verify_jwt, enabled, import_map, entrypoint; paths relative to the
 * supabase directory), `<functionsDir>/.env`, and each function's deno.json import map.
 */

export interface FunctionSettings {
  verifyJwt: boolean;
  /** Absolute path of the entrypoint. */
  entrypoint: string;
  importMapPath: string | null;
}

/** Function names as the CLI accepts them; `_shared` and dot-directories are never functions. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export function isFunctionName(name: string): boolean {
  return NAME.test(name) && name.length <= 128;
}

type TomlTable = Record<string, unknown>;

function table(value: unknown): TomlTable | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as TomlTable) : null;
}

export class FunctionsProject {
  private cached: { stamp: string; functions: TomlTable } | null = null;

  constructor(
    /** Directory of config.toml; config paths resolve against it. */
    readonly supabaseDir: string,
    readonly functionsDir: string,
    private readonly log: (line: string) => void,
  ) {}

  get configFile(): string {
    return path.join(this.supabaseDir, 'config.toml');
  }

  /** The `[functions]` table, re-read when config.toml changes; a broken file is logged and ignored. */
  private functionsTable(): TomlTable {
    let stamp: string;
    try {
      const stat = statSync(this.configFile);
      stamp = `${stat.mtimeMs}:${stat.size}`;
    } catch {
      return {};
    }
    if (this.cached?.stamp === stamp) return this.cached.functions;
    let functions: TomlTable = {};
    try {
      functions = table(parse(readFileSync(this.configFile, 'utf8')).functions) ?? {};
    } catch (error) {
      this.log(`[functions] ignoring ${this.configFile}: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.cached = { stamp, functions };
    return functions;
  }

  /** The function's settings, or null when no such function exists (or it is disabled). */
  settings(name: string): FunctionSettings | null {
    if (!isFunctionName(name)) return null;
    const entry = table(this.functionsTable()[name]) ?? {};
    const configured = typeof entry.entrypoint === 'string' ? path.resolve(this.supabaseDir, entry.entrypoint) : null;
    const entrypoint = configured ?? path.join(this.functionsDir, name, 'index.ts');
    if (entry.enabled === false || !existsSync(entrypoint)) return null;
    const importMap = typeof entry.import_map === 'string' ? path.resolve(this.supabaseDir, entry.import_map) : null;
    return {
      verifyJwt: entry.verify_jwt !== false,
      entrypoint,
      importMapPath: importMap ?? this.defaultImportMap(path.dirname(entrypoint)),
    };
  }

  private defaultImportMap(functionDir: string): string | null {
    const candidates = [
      path.join(functionDir, 'deno.json'),
      path.join(functionDir, 'deno.jsonc'),
      path.join(this.functionsDir, 'import_map.json'),
    ];
    return candidates.find((file) => existsSync(file)) ?? null;
  }

  importMap(file: string | null): ImportMapData | null {
    if (!file) return null;
    const parsed = JSON.parse(stripJsonComments(readFileSync(file, 'utf8'))) as { imports?: unknown };
    const imports: Record<string, string> = {};
    for (const [key, value] of Object.entries(table(parsed.imports) ?? {}))
      if (typeof value === 'string') imports[key] = value;
    return { imports, baseUrl: pathToFileURL(file).href };
  }

  /** Variables from `<functionsDir>/.env`, as `supabase functions serve` loads them. */
  dotenv(): Record<string, string> {
    const file = path.join(this.functionsDir, '.env');
    return existsSync(file) ? parseDotenv(readFileSync(file, 'utf8')) : {};
  }
}

/** `KEY=value` lines; `export ` prefix, `#` comments, single/double quotes, `\n` in double quotes. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1]!;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.lastIndexOf(quote) > 0) {
      value = value.slice(1, value.lastIndexOf(quote));
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '').trim();
    }
    out[key] = value;
  }
  return out;
}

/** deno.jsonc allows comments; strip them outside strings. */
function stripJsonComments(text: string): string {
  return text.replace(/("(?:\\.|[^"\\])*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str: string | undefined) => str ?? '');
}
