import { Observable } from 'rxjs';
import type { UploadFact } from '../../lib/ports/profile.ts';

/**
 * Uploads with progress. supabase-js's `upload` has no progress callback, so this makes
 * the same wire call it makes (PUT /storage/v1/object/<bucket>/<path>, bearer + apikey,
 * x-upsert) with XMLHttpRequest, whose upload events report bytes sent. Where there is
 * no XMLHttpRequest (Node, tests) fetch does it, reporting progress once at the end.
 */

export interface UploadRequest {
  /** The project's API URL (no trailing slash). */
  url: string;
  anonKey: string;
  accessToken: string;
  bucket: string;
  path: string;
  body: Blob;
  contentType: string;
}

interface StorageErrorBody {
  statusCode?: string;
  error?: string;
  message?: string;
}

/** A failed upload in words for people, by the storage API's codes. */
export function describeUploadFailure(
  status: number,
  body: StorageErrorBody | null,
): Extract<UploadFact, { type: 'upload.failed' }> {
  const code = body?.statusCode ?? String(status);
  if (code === '413' || status === 413) {
    return {
      type: 'upload.failed',
      code: 'too_big',
      message: 'That image is larger than the 2 MB limit. Choose a smaller one.',
    };
  }
  if (code === '415' || body?.error === 'invalid_mime_type') {
    return {
      type: 'upload.failed',
      code: 'wrong_type',
      message: 'That file type isn\u2019t supported. Choose a PNG, JPEG, WebP or GIF image.',
    };
  }
  if (code === '403' || status === 403 || status === 401) {
    return {
      type: 'upload.failed',
      code: 'forbidden',
      message: 'You may only upload your own avatar. Sign in again and retry.',
    };
  }
  if (status === 0)
    return {
      type: 'upload.failed',
      code: 'network',
      message: "Can't reach the server. Check your connection and try again.",
    };
  return {
    type: 'upload.failed',
    code: 'server',
    message: `The upload failed${body?.message ? `: ${body.message}` : ` (${status})`}. Try again.`,
  };
}

const parse = (text: string): StorageErrorBody | null => {
  try {
    return JSON.parse(text) as StorageErrorBody;
  } catch {
    return null;
  }
};

function target(request: UploadRequest): { url: string; headers: Record<string, string> } {
  const key = request.path.split('/').map(encodeURIComponent).join('/');
  return {
    url: `${request.url}/storage/v1/object/${request.bucket}/${key}`,
    headers: {
      authorization: `Bearer ${request.accessToken}`,
      apikey: request.anonKey,
      'x-upsert': 'true',
      'content-type': request.contentType,
      'cache-control': 'max-age=3600',
    },
  };
}

function viaXhr(request: UploadRequest): Observable<UploadFact> {
  return new Observable<UploadFact>((subscriber) => {
    const { url, headers } = target(request);
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable)
        subscriber.next({ type: 'upload.progressed', loaded: event.loaded, total: event.total });
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        subscriber.next({ type: 'upload.progressed', loaded: request.body.size, total: request.body.size });
        subscriber.next({ type: 'upload.finished', path: request.path });
      } else {
        subscriber.next(describeUploadFailure(xhr.status, parse(xhr.responseText)));
      }
      subscriber.complete();
    };
    xhr.onerror = () => {
      subscriber.next(describeUploadFailure(0, null));
      subscriber.complete();
    };
    xhr.send(request.body);
    return () => {
      if (xhr.readyState !== XMLHttpRequest.DONE) xhr.abort();
    };
  });
}

function viaFetch(request: UploadRequest): Observable<UploadFact> {
  return new Observable<UploadFact>((subscriber) => {
    const { url, headers } = target(request);
    const abort = new AbortController();
    fetch(url, { method: 'PUT', headers, body: request.body, signal: abort.signal })
      .then(async (response) => {
        if (response.ok) {
          subscriber.next({ type: 'upload.progressed', loaded: request.body.size, total: request.body.size });
          subscriber.next({ type: 'upload.finished', path: request.path });
        } else {
          subscriber.next(describeUploadFailure(response.status, parse(await response.text())));
        }
        subscriber.complete();
      })
      .catch(() => {
        if (abort.signal.aborted) return;
        subscriber.next(describeUploadFailure(0, null));
        subscriber.complete();
      });
    return () => abort.abort();
  });
}

export function uploadWithProgress(request: UploadRequest): Observable<UploadFact> {
  return typeof XMLHttpRequest === 'undefined' ? viaFetch(request) : viaXhr(request);
}
