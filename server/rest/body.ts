import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, readBody } from '../gateway/http.ts';
import { RestError } from './errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Deeper JSON than this is refused: PostgreSQL would fail it with a 5xx (stack depth). */
const MAX_JSON_DEPTH = 256;

function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++;
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) max = Math.max(max, ++depth);
    else if (ch === 125 || ch === 93) depth--;
  }
  return max;
}

/** A request body as PostgREST reads it: strict UTF-8 JSON, not too deep, within the size limit; null when empty. */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ raw: string; json: unknown } | null> {
  let buffer: Buffer;
  try {
    buffer = await readBody(req, limit);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw new RestError(413, 'PGRST413', error.message);
    throw error;
  }
  let raw: string;
  try {
    // A lenient decode would store U+FFFD in place of the bad bytes; PostgREST refuses them.
    raw = strictUtf8.decode(buffer);
  } catch {
    throw new RestError(400, 'PGRST102', 'Empty or invalid json', 'The request body is not valid UTF-8');
  }
  if (raw.trim() === '') return null;
  if (jsonDepth(raw) > MAX_JSON_DEPTH)
    throw new RestError(400, 'PGRST102', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return { raw, json: JSON.parse(raw) as unknown };
  } catch {
    throw new RestError(400, 'PGRST102', 'Empty or invalid json');
  }
}
