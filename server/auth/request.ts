import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, readBody } from '../gateway/http.ts';
import { AuthError, badRequest, validationFailed } from './errors.ts';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a JSON object body. GoTrue decodes into a struct, so an empty body, broken JSON,
 * or a non-object all fail with 400 bad_json; `optional` lets bodiless calls through.
 */
export async function readJsonObject(req: IncomingMessage, limit: number, optional = false): Promise<JsonObject> {
  let raw: Buffer;
  try {
    raw = await readBody(req, limit);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) {
      throw new AuthError(413, 'request_entity_too_large', `Request body too large (max ${limit} bytes)`);
    }
    throw error;
  }
  const text = raw.toString('utf8');
  if (text.trim() === '') {
    if (optional) return {};
    throw badRequest('bad_json', 'Could not parse request body as JSON: unexpected end of JSON input');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw badRequest('bad_json', `Could not parse request body as JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) {
    throw badRequest('bad_json', 'Could not parse request body as JSON: expected a JSON object');
  }
  if (depthExceeds(parsed, MAX_DEPTH))
    throw validationFailed(`Invalid input: JSON nested deeper than ${MAX_DEPTH} levels`);
  return parsed;
}

/** Metadata is re-serialised and stored as jsonb; absurd nesting would overflow either. */
const MAX_DEPTH = 64;

function depthExceeds(root: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A string field; absent and null read as ''. Any other type is a decode error, as in Go. */
export function stringField(body: JsonObject, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') {
    throw badRequest('bad_json', `Could not parse request body as JSON: field "${name}" must be a string`);
  }
  return value;
}

/** Like stringField, but tells "absent" (undefined) from "present and empty". */
export function optionalStringField(body: JsonObject, name: string): string | undefined {
  if (body[name] === undefined || body[name] === null) return undefined;
  return stringField(body, name);
}

/** An object field (user metadata and the like); absent and null read as undefined. */
export function objectField(body: JsonObject, name: string): JsonObject | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    throw badRequest('bad_json', `Could not parse request body as JSON: field "${name}" must be an object`);
  }
  return value;
}

export function booleanField(body: JsonObject, name: string): boolean {
  const value = body[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') {
    throw badRequest('bad_json', `Could not parse request body as JSON: field "${name}" must be a boolean`);
  }
  return value;
}
