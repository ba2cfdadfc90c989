/** Limits and timings of the realtime service; tests and benches override a few. */
export interface RealtimeOptions {
  /** Largest broadcast or presence payload, in bytes (hosted's free tier: 256 KB). */
  maxPayloadBytes: number;
  /** Largest WebSocket frame accepted at all; bigger frames close the socket (1009). */
  maxFrameBytes: number;
  /** Frames one connection may send per second before it gets error replies. */
  messagesPerSecond: number;
  /** Frames past this many in one second close the connection. */
  closeAfterMessagesPerSecond: number;
  /** A socket that sends nothing (not even a heartbeat) for this long is closed. */
  idleTimeoutMs: number;
  /** A client whose unsent bytes exceed this is too slow and gets disconnected. */
  maxBufferedBytes: number;
  /** How often a joined channel re-confirms its token at most (hosted: 5 minutes). */
  confirmTokenIntervalMs: number;
  /** Channels one socket may have joined at once (hosted's max_channels_per_client). */
  maxChannelsPerConnection: number;
}

/** A positive integer from the environment, else the fallback. */
function fromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

/**
 * Defaults, then CHARTROOM_REALTIME_* environment variables (for running the backend
 * with other limits), then explicit overrides (tests, benches).
 */
export function realtimeOptions(
  overrides: Partial<RealtimeOptions> = {},
  env: NodeJS.ProcessEnv = process.env,
): RealtimeOptions {
  const messagesPerSecond = overrides.messagesPerSecond ?? fromEnv('CHARTROOM_REALTIME_MESSAGES_PER_SECOND', 200, env);
  const maxPayloadBytes = overrides.maxPayloadBytes ?? fromEnv('CHARTROOM_REALTIME_MAX_PAYLOAD_BYTES', 256 * 1024, env);
  return {
    maxPayloadBytes,
    // Room for a payload just over the limit to arrive and be answered with an error.
    maxFrameBytes: Math.max(1024 * 1024, maxPayloadBytes * 2),
    idleTimeoutMs: fromEnv('CHARTROOM_REALTIME_IDLE_TIMEOUT_MS', 60_000, env),
    maxBufferedBytes: 8 * 1024 * 1024,
    confirmTokenIntervalMs: 5 * 60_000,
    maxChannelsPerConnection: 100,
    ...overrides,
    messagesPerSecond,
    closeAfterMessagesPerSecond: overrides.closeAfterMessagesPerSecond ?? messagesPerSecond * 2,
  };
}
