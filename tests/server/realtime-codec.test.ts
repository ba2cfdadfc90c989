import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// The client's own serializer: the server's binary frames must be what it reads and writes.
import Serializer from '@supabase/realtime-js/dist/main/lib/serializer.js';
import { decodeBinary, decodeText, encodeUserBroadcast, type Vsn } from '../../server/realtime/protocol.ts';

type ClientMessage = {
  join_ref: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
};
const serializer = new Serializer();

function toArrayBuffer(buffer: Buffer): ArrayBuffer {
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
}

/** Strings whose UTF-8 form fits a one-byte length field. */
const field = fc.string({ unit: 'grapheme', maxLength: 40 }).filter((s) => Buffer.byteLength(s) <= 255);
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

describe('the wire codec against @supabase/realtime-js', () => {
  it('decodes every kind 3 frame the client encodes, JSON and binary payloads alike', () => {
    fc.assert(
      fc.property(
        field,
        field,
        field,
        field,
        fc.oneof(json, fc.uint8Array({ maxLength: 64 })),
        (joinRef, ref, topic, event, payload) => {
          const binary = payload instanceof Uint8Array;
          const body = binary ? toArrayBuffer(Buffer.from(payload)) : payload;
          const message = {
            join_ref: joinRef,
            ref,
            topic,
            event: 'broadcast',
            payload: { type: 'broadcast', event, payload: body },
          };
          const frame = serializer.encode(message, (encoded: ArrayBuffer | string) => encoded) as ArrayBuffer;
          const decoded = decodeBinary(Buffer.from(frame));
          expect(decoded.ok).toBe(true);
          if (!decoded.ok) return;
          expect(decoded.message).toMatchObject({
            joinRef: joinRef || null,
            ref: ref || null,
            topic,
            event: 'broadcast',
          });
          expect(decoded.message.user?.event).toBe(event);
          if (binary) expect([...decoded.message.user!.body]).toEqual([...payload]);
          // The client sends a null or missing payload as {}.
          else expect(decoded.message.user!.json).toEqual(payload ?? {});
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes kind 4 frames the client decodes to the same broadcast', () => {
    fc.assert(
      fc.property(field, field, json, fc.option(fc.uuid(), { nil: null }), (topic, event, payload, id) => {
        const frame = encodeUserBroadcast(topic, {
          event,
          encoding: 'json',
          body: Buffer.from(JSON.stringify(payload)),
          metadata: id ? { id } : null,
        });
        expect(frame).not.toBeNull();
        const message: unknown = serializer.decode(toArrayBuffer(frame!), (m: ClientMessage) => m);
        expect(message).toEqual({
          join_ref: null,
          ref: null,
          topic,
          event: 'broadcast',
          payload: { type: 'broadcast', event, payload, ...(id ? { meta: { id } } : {}) },
        });
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary input, in either version', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const result = decodeBinary(Buffer.from(bytes));
        expect(typeof result.ok).toBe('boolean');
      }),
      { numRuns: 1000 },
    );
    const frames = fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .tuple(fc.jsonValue(), fc.jsonValue(), fc.jsonValue(), fc.jsonValue(), fc.jsonValue())
        .map((t) => JSON.stringify(t)),
    );
    fc.assert(
      fc.property(frames, fc.constantFrom<Vsn>('1.0.0', '2.0.0'), (text, vsn) => {
        const result = decodeText(vsn, text);
        if (result.ok) {
          expect(typeof result.message.topic).toBe('string');
          expect(typeof result.message.payload).toBe('object');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
