import type { ServerResponse } from 'node:http';
import { DatabaseError } from 'pg';
import { sendJson } from '../gateway/http.ts';
import type { JwtError } from '../jwt.ts';

/**
 * An error in the shape supabase/storage renders: the body carries the logical status
 * as a string (`statusCode`), a machine `code`, a legacy `error` label and a message.
 * Like hosted storage, the HTTP status is 400 for every client error and 500 for
 * server faults; a few errors (range) carry their real HTTP status.
 */
export class StorageError extends Error {
  constructor(
    readonly statusCode: string,
    readonly code: string,
    readonly error: string,
    message: string,
    readonly httpStatus: number = statusCode === '500' ? 500 : 400,
  ) {
    super(message);
  }

  body(): { statusCode: string; code: string; error: string; message: string } {
    return { statusCode: this.statusCode, code: this.code, error: this.error, message: this.message };
  }
}

const make = (statusCode: string, code: string, error: string, message: string, httpStatus?: number) =>
  new StorageError(statusCode, code, error, message, httpStatus);

/** Every error this service answers with, named as supabase/storage names them. */
export const errors = {
  noSuchBucket: () => make('404', 'NoSuchBucket', 'Bucket not found', 'Bucket not found'),
  noSuchKey: () => make('404', 'NoSuchKey', 'not_found', 'Object not found'),
  invalidKey: (key: string) => make('400', 'InvalidKey', 'InvalidKey', `Invalid key: ${key}`),
  invalidBucketName: () => make('400', 'InvalidBucketName', 'Invalid Input', 'Bucket name invalid'),
  accessDenied: (message = 'Access denied') => make('403', 'AccessDenied', 'Unauthorized', message),
  rlsDenied: () => make('403', 'AccessDenied', 'Unauthorized', 'new row violates row-level security policy'),
  keyExists: () => make('409', 'KeyAlreadyExists', 'Duplicate', 'The resource already exists'),
  bucketExists: () => make('409', 'BucketAlreadyExists', 'Duplicate', 'The resource already exists'),
  alreadyExists: () => make('409', 'ResourceAlreadyExists', 'Duplicate', 'The resource already exists'),
  bucketNotEmpty: () =>
    make('409', 'ResourceNotEmpty', 'ResourceNotEmpty', 'The bucket you tried to delete is not empty'),
  entityTooLarge: () =>
    make('413', 'EntityTooLarge', 'Payload too large', 'The object exceeded the maximum allowed size'),
  invalidMimeType: (mime: string) =>
    make('415', 'InvalidMimeType', 'invalid_mime_type', `mime type ${mime} is not supported`),
  invalidRequest: (message: string) => make('400', 'InvalidRequest', 'InvalidRequest', message),
  invalidParameter: (name: string) => make('400', 'InvalidParameter', 'InvalidParameter', `Invalid Parameter ${name}`),
  missingParameter: (name: string) =>
    make('400', 'MissingParameter', 'MissingParameter', `Missing Required Parameter ${name}`),
  invalidFileSizeLimit: () =>
    make('400', 'InvalidRequest', 'InvalidRequest', 'Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B'),
  noContent: () => make('400', 'InvalidRequest', 'InvalidRequest', 'No content provided'),
  invalidJwt: (message: string) => make('400', 'InvalidJWT', 'InvalidJWT', message),
  invalidSignature: (message = 'Invalid signature') => make('400', 'InvalidSignature', 'InvalidSignature', message),
  invalidRange: () => make('416', 'InvalidRange', 'invalid_range', 'invalid range provided', 416),
  relatedNotFound: () => make('404', 'InvalidRequest', 'InvalidRequest', 'The related resource does not exist'),
  referenced: () =>
    make(
      '409',
      'ResourceReferenced',
      'ResourceReferenced',
      'The resource could not be updated or removed due to a foreign key constraint',
    ),
  routeNotFound: (method: string, path: string) =>
    make('404', 'InvalidRequest', 'Not Found', `Route ${method}:${path} not found`, 404),
  databaseTimeout: () =>
    make('544', 'DatabaseTimeout', 'DatabaseTimeout', 'The connection to the database timed out', 544),
  internal: () => make('500', 'InternalError', 'Internal', 'Internal server error'),
};

/** Maps a PostgreSQL error raised while acting for a caller to the storage error hosted gives. */
export function fromDatabase(error: DatabaseError): StorageError {
  switch (error.code) {
    case '42501':
      return error.message.includes('row-level security') ? errors.rlsDenied() : errors.accessDenied(error.message);
    case '23505':
      return errors.alreadyExists();
    case '23503':
      return error.detail?.includes('is still referenced') ? errors.referenced() : errors.relatedNotFound();
    case '22P02':
      return make('400', 'InvalidParameter', 'InvalidParameter', error.message);
    case '57014':
      return errors.databaseTimeout();
    default:
      // Class 22 is bad data (out of range, too long, bad encoding): the caller's input.
      if (error.code?.startsWith('22')) return make('400', 'InvalidParameter', 'InvalidParameter', error.message);
      return make('500', 'DatabaseError', 'DatabaseError', `database error, code: ${error.code ?? 'unknown'}`);
  }
}

/** Turns anything thrown into a StorageError; unknown faults become a logged 500. */
export function toStorageError(error: unknown, log: (line: string) => void): StorageError {
  if (error instanceof StorageError) return error;
  if (error instanceof DatabaseError) {
    const mapped = fromDatabase(error);
    if (mapped.httpStatus >= 500) log(`[storage] database error ${error.code ?? ''}: ${error.message}`);
    return mapped;
  }
  log(`[storage] unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return errors.internal();
}

export function sendError(res: ServerResponse, error: StorageError, method = 'GET'): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (method === 'HEAD') {
    res.writeHead(error.httpStatus, { 'content-type': 'application/json; charset=utf-8' });
    res.end();
    return;
  }
  sendJson(res, error.httpStatus, error.body());
}

/** Messages the JWT library behind hosted storage gives for each failure. */
export function jwtFailureMessage(error: JwtError): string {
  switch (error.reason) {
    case 'expired':
      return '"exp" claim timestamp check failed';
    case 'bad_signature':
      return error.message.includes('role') ? error.message : 'signature verification failed';
    case 'unsupported_alg':
      return '"alg" (Algorithm) Header Parameter value not allowed';
    default:
      return 'Invalid Compact JWS';
  }
}
