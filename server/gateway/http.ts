import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JwtClaims, JwtError } from '../jwt.ts';
import type { RequestRole } from '../postgres/pool.ts';

/** Who is calling and how, decided once by the gateway for every request. */
export interface RequestContext {
  /** Correlates the request's log line. */
  id: string;
  method: string;
  /** Path below the service prefix, e.g. `/token` for `/auth/v1/token`. */
  path: string;
  /** The full URL as received (path and query). */
  url: URL;
  /** The bearer the request runs with: its own JWT, else the apikey, else none. */
  token: string | null;
  /** The apikey header or query parameter, when given. */
  apikey: string | null;
  /** The PostgreSQL role the claims choose; `anon` when there is no token. */
  role: RequestRole;
  claims: JwtClaims;
  /** Set when the token was present but failed verification; services answer 401. */
  authError: JwtError | null;
  /** Lower-cased request headers, as PostgREST exposes them in request.headers. */
  headers: Record<string, string>;
  /** Remote address, for rate limits and audit. */
  ip: string;
}

export class PayloadTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Payload too large: the request body exceeds ${limit} bytes`);
  }
}

/** Reads the whole body, refusing past `limit` bytes without buffering the excess. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      req.resume();
      reject(new PayloadTooLargeError(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new PayloadTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      if (!failed) reject(error);
    });
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, headers);
  res.end();
}

/** A header's single value (the first when repeated), lower-cased name. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
