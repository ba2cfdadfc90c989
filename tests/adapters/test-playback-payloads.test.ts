import { describe, expect, it } from 'vitest';
import { leftKeys, playbackFact } from '../../src/adapters/supabase/test-playback.ts';
import { MAX_PLAYED_STEPS } from '../../src/lib/ports/test-playback.ts';

/** Broadcasts on the playback channel come from other browsers: only well-formed ones become facts. */

const step = { kind: 'event', type: 'GO', payload: {}, guards: {}, expect: ['b'] };
const play = { userId: 'u1', title: 'start in a → GO → b', script: { start: ['a'], steps: [step] }, step: 1 };

describe('playback broadcasts', () => {
  it('reads a play, a stop and a question', () => {
    expect(playbackFact('play', play)).toEqual({
      type: 'playback.played',
      play: { userId: 'u1', title: play.title, script: play.script, step: 1 },
    });
    expect(playbackFact('stop', { userId: 'u1' })).toEqual({ type: 'playback.stopped', userId: 'u1' });
    expect(playbackFact('ask', { userId: 'u2' })).toEqual({ type: 'playback.asked', userId: 'u2' });
  });

  it('keeps only the fields a step needs, with empty payload and guards when they are not objects', () => {
    const fact = playbackFact('play', {
      ...play,
      script: { start: ['a'], steps: [{ ...step, payload: [1], guards: 'yes', extra: 'x' }] },
    });
    expect(fact?.type === 'playback.played' && fact.play.script.steps[0]).toEqual({
      kind: 'event',
      type: 'GO',
      payload: {},
      guards: {},
      expect: ['b'],
    });
  });

  it.each([
    ['no user', { ...play, userId: undefined }],
    ['an empty user', { ...play, userId: '' }],
    ['a step past the end', { ...play, step: 2 }],
    ['a negative step', { ...play, step: -1 }],
    ['a fractional step', { ...play, step: 0.5 }],
    ['no title', { ...play, title: 7 }],
    ['a title too long', { ...play, title: 'x'.repeat(501) }],
    ['no script', { ...play, script: null }],
    ['a start that is not a list of names', { ...play, script: { start: [1], steps: [step] } }],
    ['a step of an unknown kind', { ...play, script: { start: ['a'], steps: [{ ...step, kind: 'jump' }] } }],
    ['a step without expectations', { ...play, script: { start: ['a'], steps: [{ ...step, expect: 'b' }] } }],
    ['a step whose type is a number', { ...play, script: { start: ['a'], steps: [{ ...step, type: 3 }] } }],
    [
      'too many steps',
      { ...play, step: 0, script: { start: ['a'], steps: Array.from({ length: MAX_PLAYED_STEPS + 1 }, () => step) } },
    ],
  ])('drops a play with %s', (_, payload) => {
    expect(playbackFact('play', payload as Record<string, unknown>)).toBeNull();
  });

  it('drops events it does not know and stops without a user', () => {
    expect(playbackFact('cursor', { userId: 'u1' })).toBeNull();
    expect(playbackFact('stop', {})).toBeNull();
  });

  it('names as left only the people who were present and are not any more', () => {
    const peers = (...keys: string[]) => keys.map((key) => ({ key }));
    expect(leftKeys(new Set(), peers('u1', 'u2'))).toEqual([]);
    expect(leftKeys(new Set(['u1', 'u2']), peers('u2'))).toEqual(['u1']);
    expect(leftKeys(new Set(['u1', 'u2', 'u3']), peers('u4'))).toEqual(['u1', 'u2', 'u3']);
    expect(leftKeys(new Set(['u1']), peers('u1', 'u5'))).toEqual([]);
  });
});
