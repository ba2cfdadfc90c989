import path from 'node:path';
import { errors } from './errors.ts';

/** Hosted storage's S3-safe character set for object keys (ASCII only). */
const KEY_CHARS = /^[A-Za-z0-9_/!.*'() &$=@;:+,?-]+$/;
/** The same set without `/`, for bucket names. */
const BUCKET_CHARS = /^[A-Za-z0-9_!.*'() &$=@;:+,?-]+$/;
export const MAX_KEY_BYTES = 1024;

/**
 * Validates an object key. Beyond hosted's character set this refuses anything that
 * could change which file the key names on disk: `.`/`..` and empty segments and a
 * leading slash (backslashes, `%` and control characters are outside the set).
 */
export function mustBeValidKey(key: string): string {
  if (!key || Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES || !KEY_CHARS.test(key)) throw errors.invalidKey(key);
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw errors.invalidKey(key);
  }
  return key;
}

/** Bucket ids name a directory, so `.` and `..` are refused too. */
export function isValidBucketName(name: string): boolean {
  return name.length > 0 && name.length < 101 && BUCKET_CHARS.test(name) && name !== '.' && name !== '..';
}

export function mustBeValidBucketName(name: string): string {
  if (!isValidBucketName(name)) throw errors.invalidBucketName();
  return name;
}

/**
 * Decodes raw (percent-encoded) URL path segments into a key. An encoded slash or
 * backslash would smuggle a separator through the router, so it is refused before
 * decoding; the decoded key then passes mustBeValidKey, which catches `%2e%2e` and `%00`.
 */
export function keyFromRawSegments(raw: string[]): string {
  const joined = raw.join('/');
  if (/%2f|%5c/i.test(joined)) throw errors.invalidKey(safeDecode(joined));
  const decoded = raw.map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw errors.invalidKey(segment);
    }
  });
  return mustBeValidKey(decoded.join('/'));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Decodes one raw URL segment (a bucket id); malformed escapes make an invalid name. */
export function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw errors.invalidBucketName();
  }
}

/**
 * Where bytes live: `<root>/<bucket>/<key>#<version>`. `#` is outside the key and bucket
 * character sets, so a version suffix can never collide with a key segment, and each
 * upload writes a new file: readers of the previous row keep their bytes until commit.
 */
export class DiskLayout {
  constructor(readonly root: string) {}

  bucketDir(bucket: string): string {
    mustBeValidBucketName(bucket);
    return this.inside(this.root, path.join(this.root, bucket));
  }

  objectFile(bucket: string, key: string, version: string): string {
    mustBeValidKey(key);
    if (!/^[0-9a-f-]{36}$/.test(version)) throw new Error(`refusing version ${version}`);
    const dir = this.bucketDir(bucket);
    return this.inside(dir, path.join(dir, ...key.split('/')) + `#${version}`);
  }

  /** Temp files sit in the bucket's own directory (same filesystem, so rename is atomic). */
  tempFile(bucket: string, id: string): string {
    const dir = this.bucketDir(bucket);
    return this.inside(dir, path.join(dir, `#upload-${id}`));
  }

  /** Defence in depth: whatever validation said, never hand out a path outside `dir`. */
  private inside(dir: string, candidate: string): string {
    const resolved = path.resolve(candidate);
    if (!resolved.startsWith(path.resolve(dir) + path.sep)) throw new Error(`path escapes ${dir}`);
    return resolved;
  }
}
