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

export function realtimeOptions(overrides: Partial<RealtimeOptions> = {}): RealtimeOptions {
  const messagesPerSecond = overrides.messagesPerSecond ?? 200;
  return {
    maxPayloadBytes: 256 * 1024,
    maxFrameBytes: 1024 * 1024,
    idleTimeoutMs: 60_000,
    maxBufferedBytes: 8 * 1024 * 1024,
    confirmTokenIntervalMs: 5 * 60_000,
    maxChannelsPerConnection: 100,
    ...overrides,
    messagesPerSecond,
    closeAfterMessagesPerSecond: overrides.closeAfterMessagesPerSecond ?? messagesPerSecond * 2,
  };
}
