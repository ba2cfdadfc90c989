import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError, readBody } from '../gateway/http.ts';
import { errors } from './errors.ts';

export type Json = Record<string, unknown>;

/** Reads a JSON object body; an empty body is `{}` (storage-js sends `{}` or nothing). */
export async function readJson(req: IncomingMessage, limit: number): Promise<Json> {
  let raw: Buffer;
  try {
    raw = await readBody(req, limit);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw errors.entityTooLarge();
    throw errors.invalidRequest('The request body could not be read');
  }
  const text = raw.toString('utf8').trim();
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.invalidRequest('Body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw errors.invalidRequest('body must be object');
  return value as Json;
}

export function requiredString(body: Json, name: string): string {
  const value = body[name];
  if (value === undefined || value === null) throw errors.invalidRequest(`body must have required property '${name}'`);
  if (typeof value !== 'string') throw errors.invalidRequest(`body/${name} must be string`);
  return value;
}

export function optionalString(body: Json, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw errors.invalidRequest(`body/${name} must be string`);
  return value;
}

export function optionalBoolean(body: Json, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw errors.invalidRequest(`body/${name} must be boolean`);
  return value;
}

export function optionalInteger(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  // Bounded to int4 so the value always fits the query it ends up in.
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > 2 ** 31 - 1) {
    throw errors.invalidRequest(`${name} must be an integer >= ${min}`);
  }
  return number;
}

/** A signed URL's lifetime: a finite number of seconds, at least 1. */
export function expiresInSeconds(body: Json): number {
  const value = body.expiresIn;
  if (value === undefined || value === null)
    throw errors.invalidRequest("body must have required property 'expiresIn'");
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) throw errors.invalidParameter('expiresIn');
  const seconds = Math.floor(number);
  // Keep exp within a 32-bit signed timestamp, as hosted bounds it.
  if (seconds < 1 || Math.floor(Date.now() / 1000) + seconds > 2 ** 31 - 1) throw errors.invalidParameter('expiresIn');
  return seconds;
}

export function stringArray(body: Json, name: string): string[] {
  const value = body[name];
  if (!Array.isArray(value)) throw errors.invalidRequest(`body must have required property '${name}'`);
  if (!value.every((v): v is string => typeof v === 'string'))
    throw errors.invalidRequest(`body/${name} must be array of strings`);
  return value;
}
