import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { errors, StorageError } from './errors.ts';

/** The file part of an upload request, before its bytes are read. */
export interface IncomingFile {
  stream: Readable;
  mimetype: string;
  cacheControl: string;
  userMetadata: Record<string, unknown> | null;
  /** Bytes the client declared (raw bodies only), for policies that look at size. */
  declaredLength: number | null;
  /** Resolves when the whole request has been parsed (multipart trailer included). */
  finished: Promise<void>;
}

export interface WrittenFile {
  size: number;
  md5: string;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** x-metadata carries base64 JSON, as storage-js encodes it. */
function userMetadataHeader(req: IncomingMessage): Record<string, unknown> | null {
  const raw = headerValue(req, 'x-metadata');
  if (!raw) return null;
  return parseJsonObject(Buffer.from(raw, 'base64').toString('utf8'));
}

/**
 * Finds the file in an upload request: the raw body itself, or the first file part of a
 * multipart/form-data body (the browser client sends it in a field named "" after a
 * `cacheControl` field). Refuses a declared length over `limit` before reading.
 */
export function incomingFile(req: IncomingMessage, limit: number): Promise<IncomingFile> {
  const contentType = headerValue(req, 'content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) {
    const declared = Number(headerValue(req, 'content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limit) return Promise.reject(errors.entityTooLarge());
    return Promise.resolve({
      stream: req,
      mimetype: contentType || 'application/octet-stream',
      cacheControl: headerValue(req, 'cache-control') ?? 'no-cache',
      userMetadata: userMetadataHeader(req),
      declaredLength: Number.isFinite(declared) ? declared : null,
      finished: Promise.resolve(),
    });
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // One byte over the limit lets the writer see the overflow and answer 413.
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: limit + 1, fields: 20, fieldSize: 1024 * 1024 },
      });
    } catch {
      reject(errors.invalidRequest('Invalid multipart/form-data body'));
      return;
    }
    const fields = new Map<string, string>();
    let gotFile = false;
    let settle: { resolve: () => void; reject: (e: Error) => void } | null = null;
    const finished = new Promise<void>((res, rej) => {
      settle = { resolve: res, reject: rej };
    });
    finished.catch(() => undefined);
    let current: Readable | null = null;
    parser.on('field', (name, value) => fields.set(name, value));
    parser.on('file', (_name, stream, info) => {
      if (gotFile) {
        stream.resume();
        return;
      }
      gotFile = true;
      current = stream;
      const cacheTime = fields.get('cacheControl');
      const metadata = fields.get('metadata') ?? fields.get('userMetadata');
      resolve({
        stream,
        mimetype: fields.get('contentType') || info.mimeType || 'application/octet-stream',
        cacheControl: cacheTime ? `max-age=${cacheTime}` : 'no-cache',
        userMetadata: metadata ? parseJsonObject(metadata) : null,
        declaredLength: null,
        finished,
      });
    });
    parser.on('close', () => {
      settle?.resolve();
      if (!gotFile) reject(errors.noContent());
    });
    parser.on('error', () => {
      const error = errors.invalidRequest('Invalid multipart/form-data body');
      settle?.reject(error);
      if (!gotFile) reject(error);
      req.unpipe(parser);
      req.resume();
    });
    // A client that hangs up mid-body leaves busboy waiting forever: end it here.
    req.once('close', () => {
      if (req.complete) return;
      const error = errors.invalidRequest('The upload was interrupted');
      settle?.reject(error);
      if (!gotFile) reject(error);
      current?.destroy(error);
    });
    req.pipe(parser);
  });
}

/**
 * Streams the file into `target` (created exclusively), hashing as it goes and never
 * holding more than a chunk in memory. Past `limit` bytes it stops writing, lets the
 * rest of the request drain unread, and fails with 413; the caller removes `target`.
 */
export function writeFile(file: IncomingFile, target: string, limit: number): Promise<WrittenFile> {
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(target, { flags: 'wx' });
    const hash = createHash('md5');
    const input = file.stream;
    let size = 0;
    let done = false;
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      input.off('data', onData);
      input.resume(); // discard what is left so the response can still be read
      out.destroy();
      out.once('close', () => reject(error));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        fail(errors.entityTooLarge());
        return;
      }
      hash.update(chunk);
      if (!out.write(chunk)) {
        input.pause();
        out.once('drain', () => {
          if (!done) input.resume();
        });
      }
    };
    input.on('data', onData);
    file.finished.catch((error: unknown) => fail(error instanceof Error ? error : errors.noContent()));
    input.once('end', () => {
      if (done) return;
      out.end();
      out.once('close', () => {
        if (done) return;
        done = true;
        file.finished.then(
          () => resolve({ size, md5: hash.digest('hex') }),
          (error: unknown) => reject(error instanceof Error ? error : errors.noContent()),
        );
      });
    });
    input.once('error', () => fail(errors.invalidRequest('The upload was interrupted')));
    input.once('close', () => {
      if (!input.readableEnded) fail(errors.invalidRequest('The upload was interrupted'));
    });
    out.once('error', (error) => {
      if (done) return;
      done = true;
      input.off('data', onData);
      input.resume();
      reject(error);
    });
  });
}

/** Values replayed as response headers on download must be printable ASCII. */
export function isHeaderSafe(value: string): boolean {
  return /^[\x21-\x7e][\x20-\x7e]{0,1023}$/.test(value);
}

/** Hosted's check: `type/*` or an exact `type/subtype`; parameters never decide. */
export function mimeAllowed(mimetype: string, allowed: string[] | null): boolean {
  if (!allowed || allowed.length === 0) return true;
  const [type, subtype] = mimetype.split(';')[0]!.trim().toLowerCase().split('/');
  if (!type || !subtype) return false;
  return allowed.some((entry) => {
    const [allowedType, allowedSub] = entry.split(';')[0]!.trim().toLowerCase().split('/');
    return allowedType === type && (allowedSub === '*' || allowedSub === subtype);
  });
}

export function isStorageError(error: unknown): error is StorageError {
  return error instanceof StorageError;
}
