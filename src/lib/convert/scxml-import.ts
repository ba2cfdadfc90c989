import type { ImportOptions } from '../model/import.ts';
import { finish, issueAt, MAX_SOURCE, type ConvertResult } from './issues.ts';
import { parseXml, XmlError, type XmlElement } from './xml.ts';
import { Reader } from './scxml-states.ts';

/**
 * SCXML -> definition, through an XState JSON config (so targets resolve exactly as in
 * every other import). Reads what `exportScxml` writes and plain W3C SCXML: standard
 * executable content (`<raise>`, `<assign>`, `<log>`, `<send>`, `<script>`, ...) becomes a
 * named placeholder action carrying its attributes, with a warning; anything else it
 * cannot model is reported with its line and column and left out.
 */

/** Read a machine from SCXML text. Never throws for bad input. */
export function importScxml(text: string, options: ImportOptions = {}): ConvertResult {
  if (text.length > MAX_SOURCE)
    return {
      definition: null,
      config: null,
      issues: [issueAt('', 'error', '', `the file is too large to import (over ${MAX_SOURCE} characters)`, 0)],
    };
  let root: XmlElement;
  try {
    root = parseXml(text);
  } catch (err) {
    const offset = err instanceof XmlError ? err.offset : 0;
    const message = err instanceof Error ? err.message : String(err);
    return {
      definition: null,
      config: null,
      issues: [issueAt(text, 'error', '', `not well-formed XML: ${message}`, offset)],
    };
  }
  try {
    const reader = new Reader(text);
    const config = reader.document(root);
    if (config === null) return { definition: null, config: null, issues: reader.issues };
    return finish(text, config, reader.spans, reader.issues, { name: root.attrs['cr:name'], ...options });
  } catch (err) {
    return {
      definition: null,
      config: null,
      issues: [
        issueAt(
          text,
          'error',
          '',
          `the SCXML could not be read: ${err instanceof Error ? err.message : String(err)}`,
          0,
        ),
      ],
    };
  }
}
