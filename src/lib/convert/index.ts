/**
 * Converters between Chartroom's model and what teams already use: XState v5 TypeScript,
 * XState JSON, SCXML and Mermaid (export only). Pure: text in, text or a definition out.
 * The TypeScript importer pulls in the TypeScript compiler, so the app loads this module
 * lazily (`import('.../convert/index.ts')`), never on the page's first load.
 */
import type { MachineDefinition } from '../model/types.ts';
import type { ConvertOptions, ConvertResult } from './issues.ts';
import { exportJson, importJson } from './json.ts';
import { exportMermaid } from './mermaid.ts';
import { exportScxml } from './scxml-export.ts';
import { importScxml } from './scxml-import.ts';
import { exportTypeScript } from './ts-export.ts';
import { importTypeScript } from './ts-import.ts';

export type TextFormat = 'typescript' | 'json' | 'scxml' | 'mermaid';

export interface FormatInfo {
  label: string;
  extension: string;
  mime: string;
  export: (def: MachineDefinition) => string;
  import: ((text: string, options?: ConvertOptions) => ConvertResult) | null;
}

export const FORMATS: Record<TextFormat, FormatInfo> = {
  typescript: {
    label: 'TypeScript',
    extension: 'ts',
    mime: 'text/typescript',
    export: exportTypeScript,
    import: importTypeScript,
  },
  json: { label: 'JSON', extension: 'json', mime: 'application/json', export: exportJson, import: importJson },
  scxml: {
    label: 'SCXML',
    extension: 'scxml',
    mime: 'application/scxml+xml',
    export: exportScxml,
    import: importScxml,
  },
  mermaid: { label: 'Mermaid', extension: 'mmd', mime: 'text/plain', export: exportMermaid, import: null },
};

/** The format a file or pasted text is in: by extension first, then by its first characters. */
export function detectFormat(text: string, fileName = ''): Exclude<TextFormat, 'mermaid'> {
  const ext = fileName.toLowerCase().split('.').pop() ?? '';
  if (ext === 'json') return 'json';
  if (ext === 'scxml' || ext === 'xml') return 'scxml';
  if (['ts', 'tsx', 'js', 'jsx', 'mts', 'mjs', 'cts', 'cjs'].includes(ext)) return 'typescript';
  const start = text.trimStart();
  if (start.startsWith('{')) return 'json';
  if (start.startsWith('<')) return 'scxml';
  return 'typescript';
}

export function importText(
  text: string,
  fileName = '',
  options: ConvertOptions = {},
): ConvertResult & { format: TextFormat } {
  const format = detectFormat(text, fileName);
  const reader = FORMATS[format].import as NonNullable<FormatInfo['import']>;
  return { ...reader(text, { ...options, fileName }), format };
}

export { catalogue, type Catalogue } from './catalogue.ts';
export { describeIssue, describeLeftOut, type ConvertResult, type LeftOut } from './issues.ts';
export { exportJson, exportMermaid, exportScxml, exportTypeScript, importJson, importScxml, importTypeScript };
