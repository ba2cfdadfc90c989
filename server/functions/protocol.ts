/**
 * Messages between the functions service (main thread) and one function's worker.
 * A request crosses as one message with its whole body. A response whose body is complete
 * at once comes back as one `response` message; a streamed one as a head, then chunks,
 * each acknowledged before the worker reads the next (backpressure), then an end. Bodies
 * travel as transferred ArrayBuffers, never copied twice.
 */

export type HeaderList = [string, string][];

/** The worker's start-up parameters (workerData). */
export interface WorkerSetup {
  name: string;
  /** file: URL of the function's entrypoint (index.ts). */
  entryUrl: string;
  importMap: ImportMapData | null;
  /** file: URL inside the project, used to resolve npm packages the function's own tree lacks. */
  fallbackParentUrl: string;
}

/** A Deno import map (deno.json "imports"), with the URL its relative targets resolve against. */
export interface ImportMapData {
  imports: Record<string, string>;
  baseUrl: string;
}

export type HostMessage =
  | {
      type: 'request';
      id: number;
      method: string;
      url: string;
      headers: HeaderList;
      body: ArrayBuffer | null;
      remoteAddr: string;
      /** A WebSocket upgrade: the handler may answer with Deno.upgradeWebSocket's response. */
      upgrade?: boolean;
    }
  /** The chunk was written out; the worker may read the next one. */
  | { type: 'ack'; id: number }
  /** The client went away: abort req.signal and stop reading the body. */
  | { type: 'abort'; id: number }
  /** An upgraded connection (see worker-sockets.ts): handshake done, a client frame, the end. */
  | { type: 'ws-open'; id: number }
  | { type: 'ws-message'; id: number; data: string | ArrayBuffer }
  | { type: 'ws-closed'; id: number; code: number; reason: string; clean: boolean };

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'boot-error'; message: string }
  /** Head and whole body at once (null: no body, or a HEAD request). */
  | { type: 'response'; id: number; status: number; statusText: string; headers: HeaderList; body: ArrayBuffer | null }
  | { type: 'head'; id: number; status: number; statusText: string; headers: HeaderList }
  | { type: 'chunk'; id: number; data: ArrayBuffer }
  | { type: 'end'; id: number }
  /** The handler threw, returned a non-Response, or its body stream failed. */
  | { type: 'error'; id: number; message: string }
  /** The handler returned Deno.upgradeWebSocket's response: complete the handshake. */
  | { type: 'upgrade'; id: number; protocol: string; headers: HeaderList }
  | { type: 'ws-send'; id: number; data: string | ArrayBuffer }
  | { type: 'ws-close'; id: number; code: number; reason: string };
