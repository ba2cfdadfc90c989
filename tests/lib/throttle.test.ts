import fc from 'fast-check';
import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { latestAtMost } from '../../src/lib/throttle.ts';

/**
 * The cursor and view throttle (20 a second in the canvas adapter), in virtual time: one
 * marble frame is 1 ms, so at 20 a second a window is 50 frames. No wall clock anywhere.
 */

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('latestAtMost', () => {
  it('passes the first value on at once', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a', { a: 1 }).pipe(latestAtMost(20))).toBe('a', { a: 1 });
      // And the first after a long quiet spell: no waiting for a window to end.
      expectObservable(cold('a 500ms b', { a: 1, b: 2 }).pipe(latestAtMost(20))).toBe('a 500ms b', { a: 1, b: 2 });
    });
  });

  it('sends the last value of a burst when its window ends, and nothing twice', () => {
    scheduler().run(({ cold, expectObservable }) => {
      // a at 0, b at 10, c at 20 (each letter takes a frame); the window is 0-50.
      const burst = cold('a 9ms b 9ms c', { a: 1, b: 2, c: 3 });
      expectObservable(burst.pipe(latestAtMost(20))).toBe('a 49ms c', { a: 1, c: 3 });
      // A lone value is sent once: no trailing echo of it.
      expectObservable(cold('a 200ms |').pipe(latestAtMost(20))).toBe('a 200ms |');
    });
  });

  it('reports a pointer that stops where it stopped', () => {
    scheduler().run(({ cold, expectObservable }) => {
      // Moves every 10 ms for 120 ms, then rests at 12.
      const moves = cold('a 9ms b 9ms c 9ms d 9ms e 9ms f 9ms g 9ms h 9ms i 9ms j 9ms k 9ms l 9ms m', {
        a: 0,
        b: 1,
        c: 2,
        d: 3,
        e: 4,
        f: 5,
        g: 6,
        h: 7,
        i: 8,
        j: 9,
        k: 10,
        l: 11,
        m: 12,
      });
      // At 0 the first; at 50 the latest then (f, sent at 50); at 100 the latest (k); at 150 where it stopped (m).
      expectObservable(moves.pipe(latestAtMost(20))).toBe('a 49ms f 49ms k 49ms m', { a: 0, f: 5, k: 10, m: 12 });
    });
  });

  it('sends a value that arrives just after a trailing send in the next window', () => {
    scheduler().run(({ cold, expectObservable }) => {
      // b ends the first window at 50; c at 60 falls in the window that b's send opened (50-100).
      expectObservable(cold('a 9ms b 49ms c', { a: 1, b: 2, c: 3 }).pipe(latestAtMost(20))).toBe('a 49ms b 49ms c', {
        a: 1,
        b: 2,
        c: 3,
      });
    });
  });

  it('scales the window with the rate', () => {
    scheduler().run(({ cold, expectObservable }) => {
      // 4 a second: 250 ms windows.
      expectObservable(cold('a 9ms b 99ms c', { a: 1, b: 2, c: 3 }).pipe(latestAtMost(4))).toBe('a 249ms c', {
        a: 1,
        c: 3,
      });
    });
  });

  it('for any arrivals: first at once, windows apart, in order, ending on the last value', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 1, maxLength: 60 }),
        fc.constantFrom(4, 20, 50),
        (gaps, perSecond) => {
          const window = 1000 / perSecond;
          const virtual = new TestScheduler(() => undefined);
          const sent: { at: number; value: number }[] = [];
          const arrivals: number[] = [];
          virtual.run(() => {
            const source = new Subject<number>();
            source
              .pipe(latestAtMost<number>(perSecond, virtual))
              .subscribe((value) => sent.push({ at: virtual.now(), value }));
            let at = 0;
            gaps.forEach((gap, value) => {
              at += gap;
              arrivals.push(at);
              virtual.schedule(() => source.next(value), at);
            });
            virtual.flush();
          });
          expect(sent[0]).toEqual({ at: arrivals[0], value: 0 });
          for (let i = 1; i < sent.length; i += 1) {
            const [previous, current] = [sent[i - 1], sent[i]];
            if (!previous || !current) throw new Error('unreachable');
            expect(current.at - previous.at).toBeGreaterThanOrEqual(window);
            expect(current.value).toBeGreaterThan(previous.value);
            // Never a value from the future, and always the latest one by then.
            expect(arrivals[current.value]).toBeLessThanOrEqual(current.at);
            expect(arrivals[current.value + 1] ?? Infinity).toBeGreaterThanOrEqual(current.at);
          }
          // Where the pointer stopped is sent, within one window of its arrival.
          expect(sent.at(-1)?.value).toBe(gaps.length - 1);
          expect((sent.at(-1)?.at ?? Infinity) - (arrivals.at(-1) ?? 0)).toBeLessThanOrEqual(window);
          // At most one send per window, plus the first.
          const span = (sent.at(-1)?.at ?? 0) - (arrivals[0] ?? 0);
          expect(sent.length).toBeLessThanOrEqual(Math.floor(span / window) + 1);
        },
      ),
    );
  });
});
