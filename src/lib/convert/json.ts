import { checkXStateText } from '../model/check.ts';
import { exportXState } from '../model/export.ts';
import type { ImportOptions } from '../model/import.ts';
import type { MachineDefinition } from '../model/types.ts';
import { issueAt, MAX_SOURCE, type ConvertResult } from './issues.ts';

/** XState JSON, as the code view shows it. */
export function exportJson(def: MachineDefinition): string {
  return `${JSON.stringify(exportXState(def), null, 2)}\n`;
}

export function importJson(text: string, options: ImportOptions = {}): ConvertResult {
  if (text.length > MAX_SOURCE)
    return {
      definition: null,
      config: null,
      issues: [issueAt('', 'error', '', `the file is too large to import (over ${MAX_SOURCE} characters)`, 0)],
    };
  return checkXStateText(text, options);
}
