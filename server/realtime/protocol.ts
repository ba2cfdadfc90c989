/**
 * The Phoenix channel wire format in the two versions @supabase/realtime-js speaks:
 * vsn 1.0.0 sends JSON objects, vsn 2.0.0 sends JSON arrays plus binary broadcast
 * frames (kind 3 from the client, kind 4 from the server). Pure functions only.
 */

export type Vsn = '1.0.0' | '2.0.0';
export const VSNS: readonly Vsn[] = ['1.0.0', '2.0.0'];

export function isVsn(value: unknown): value is Vsn {
  return value === '1.0.0' || value === '2.0.0';
}

/** A user broadcast whose payload travels as raw bytes (binary kinds 3 and 4). */
export interface UserBroadcast {
  event: string;
  encoding: 'json' | 'binary';
  /** The payload bytes exactly as sent: UTF-8 JSON or opaque binary. */
  body: Buffer;
  /** The parsed JSON body, when encoding is json. */
  json?: unknown;
  metadata: Record<string, unknown> | null;
}

/** One frame from a client, whatever its encoding. */
export interface Inbound {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  /** JSON payload; for a binary broadcast push, the UserBroadcast below instead. */
  payload: unknown;
  user?: UserBroadcast;
}

export type Decoded =
  | { ok: true; message: Inbound }
  /** What could be read of a bad frame, so it can be answered when it had a ref. */
  | { ok: false; error: string; topic?: string; ref?: string | null; joinRef?: string | null };

const KIND_USER_BROADCAST_PUSH = 3;
const KIND_USER_BROADCAST = 4;
const ENCODING_BINARY = 0;
const ENCODING_JSON = 1;

function refOf(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fromParts(joinRef: unknown, ref: unknown, topic: unknown, event: unknown, payload: unknown): Decoded {
  const jr = refOf(joinRef);
  const r = refOf(ref);
  if (typeof topic !== 'string' || jr === undefined || r === undefined) {
    return { ok: false, error: 'malformed message: topic must be a string and refs strings or null' };
  }
  if (typeof event !== 'string')
    return { ok: false, error: 'malformed message: event must be a string', topic, ref: r, joinRef: jr };
  if (!isObject(payload))
    return { ok: false, error: 'malformed message: payload must be an object', topic, ref: r, joinRef: jr };
  return { ok: true, message: { joinRef: jr, ref: r, topic, event, payload } };
}

/** Decodes a text frame: an object for vsn 1.0.0, a five-element array for vsn 2.0.0. */
export function decodeText(vsn: Vsn, text: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'malformed message: invalid JSON' };
  }
  if (vsn === '1.0.0') {
    if (!isObject(value)) return { ok: false, error: 'malformed message: expected a JSON object' };
    return fromParts(value.join_ref, value.ref, value.topic, value.event, value.payload);
  }
  if (!Array.isArray(value)) return { ok: false, error: 'malformed message: expected a JSON array' };
  if (value.length !== 5) {
    const topic = typeof value[2] === 'string' ? value[2] : undefined;
    const ref = refOf(value[1]);
    return {
      ok: false,
      error: `malformed message: expected 5 elements, got ${value.length}`,
      ...(topic ? { topic } : {}),
      ...(ref !== undefined ? { ref } : {}),
    };
  }
  return fromParts(value[0], value[1], value[2], value[3], value[4]);
}

/** Decodes a binary frame (vsn 2.0.0 only); kind 3 is the only kind clients send us. */
export function decodeBinary(data: Buffer): Decoded {
  if (data.length < 1) return { ok: false, error: 'malformed binary message: empty frame' };
  const kind = data[0];
  if (kind !== KIND_USER_BROADCAST_PUSH)
    return { ok: false, error: `malformed binary message: unknown kind ${String(kind)}` };
  const headerLength = 7;
  if (data.length < headerLength) return { ok: false, error: 'malformed binary message: truncated header' };
  const sizes = [data[1]!, data[2]!, data[3]!, data[4]!, data[5]!];
  const encoding = data[6]!;
  const total = headerLength + sizes.reduce((a, b) => a + b, 0);
  if (data.length < total) return { ok: false, error: 'malformed binary message: truncated fields' };
  let offset = headerLength;
  const field = (size: number): string => {
    const text = data.toString('utf8', offset, offset + size);
    offset += size;
    return text;
  };
  const joinRef = field(sizes[0]!);
  const ref = field(sizes[1]!);
  const topic = field(sizes[2]!);
  const event = field(sizes[3]!);
  const metadataText = field(sizes[4]!);
  const body = data.subarray(offset);
  const known = { topic, ref: ref || null, joinRef: joinRef || null };
  if (encoding !== ENCODING_JSON && encoding !== ENCODING_BINARY) {
    return { ok: false, error: `malformed binary message: unknown payload encoding ${encoding}`, ...known };
  }
  let metadata: Record<string, unknown> | null = null;
  if (metadataText.length > 0) {
    try {
      const parsed: unknown = JSON.parse(metadataText);
      if (!isObject(parsed)) throw new Error('not an object');
      metadata = parsed;
    } catch {
      return { ok: false, error: 'malformed binary message: metadata is not a JSON object', ...known };
    }
  }
  const user: UserBroadcast = { event, encoding: encoding === ENCODING_JSON ? 'json' : 'binary', body, metadata };
  if (user.encoding === 'json') {
    try {
      user.json = JSON.parse(body.toString('utf8'));
    } catch {
      return { ok: false, error: 'malformed binary message: payload is not valid JSON', ...known };
    }
  }
  return {
    ok: true,
    message: { joinRef: known.joinRef, ref: known.ref, topic, event: 'broadcast', payload: null, user },
  };
}

/** A message to a client in JSON, framed for its protocol version. */
export function encodeJson(
  vsn: Vsn,
  joinRef: string | null,
  ref: string | null,
  topic: string,
  event: string,
  payload: unknown,
): string {
  // Phoenix's V1 serializer writes only topic, event, payload and ref.
  if (vsn === '1.0.0') return JSON.stringify({ topic, event, payload, ref });
  return JSON.stringify([joinRef, ref, topic, event, payload]);
}

export function encodeReply(
  vsn: Vsn,
  joinRef: string | null,
  ref: string | null,
  topic: string,
  status: 'ok' | 'error',
  response: unknown,
): string {
  return encodeJson(vsn, joinRef, ref, topic, 'phx_reply', { status, response });
}

/** Server kind 4 frame: kind, sizes of topic, event and metadata, encoding, the strings, the payload. */
export function encodeUserBroadcast(
  topic: string,
  user: Pick<UserBroadcast, 'event' | 'encoding' | 'body' | 'metadata'>,
): Buffer | null {
  const topicBytes = Buffer.from(topic, 'utf8');
  const eventBytes = Buffer.from(user.event, 'utf8');
  const metadataBytes = user.metadata ? Buffer.from(JSON.stringify(user.metadata), 'utf8') : Buffer.alloc(0);
  if (topicBytes.length > 255 || eventBytes.length > 255 || metadataBytes.length > 255) return null;
  const header = Buffer.from([
    KIND_USER_BROADCAST,
    topicBytes.length,
    eventBytes.length,
    metadataBytes.length,
    user.encoding === 'json' ? ENCODING_JSON : ENCODING_BINARY,
  ]);
  return Buffer.concat([header, topicBytes, eventBytes, metadataBytes, user.body]);
}

/** Client-side kind 3 encoder, for tests and benches that speak the protocol raw. */
export function encodeUserBroadcastPush(
  joinRef: string,
  ref: string,
  topic: string,
  event: string,
  payload: Buffer,
  encoding: 'json' | 'binary' = 'json',
  metadata = '',
): Buffer {
  const parts = [joinRef, ref, topic, event, metadata].map((s) => Buffer.from(s, 'utf8'));
  const header = Buffer.from([
    KIND_USER_BROADCAST_PUSH,
    ...parts.map((p) => p.length),
    encoding === 'json' ? ENCODING_JSON : ENCODING_BINARY,
  ]);
  return Buffer.concat([header, ...parts, payload]);
}
