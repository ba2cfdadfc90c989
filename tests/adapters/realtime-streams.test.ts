import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { deferred, factsAs } from '../../src/adapters/supabase/realtime.ts';

/**
 * The two stream steps every channel message crosses (src/adapters/supabase/realtime.ts):
 * `deferred` hands messages on after the caller's stack, in order, and nothing after
 * unsubscribing; `factsAs` turns each fact into at most one event.
 */

const microtask = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('deferred', () => {
  it('delivers after the caller returns, in order, then the completion', async () => {
    const source = new Subject<number>();
    const got: (number | 'done')[] = [];
    deferred(source).subscribe({ next: (n) => got.push(n), complete: () => got.push('done') });
    source.next(1);
    source.next(2);
    source.complete();
    expect(got).toEqual([]);
    await microtask();
    expect(got).toEqual([1, 2, 'done']);
  });

  it('delivers a message sent while it delivers in a later microtask, after the ones before it', async () => {
    const source = new Subject<number>();
    const got: number[] = [];
    deferred(source).subscribe((n) => {
      got.push(n);
      if (n === 1) source.next(3);
    });
    source.next(1);
    source.next(2);
    await microtask();
    await microtask();
    expect(got).toEqual([1, 2, 3]);
  });

  it('delivers nothing waiting once unsubscribed, even from inside a delivery', async () => {
    const source = new Subject<number>();
    const got: number[] = [];
    const subscription = deferred(source).subscribe((n) => {
      got.push(n);
      subscription.unsubscribe();
    });
    source.next(1);
    source.next(2);
    await microtask();
    expect(got).toEqual([1]);
    expect(source.observed).toBe(false);
  });

  it('passes an error on in its turn', async () => {
    const source = new Subject<number>();
    const got: unknown[] = [];
    deferred(source).subscribe({ next: (n) => got.push(n), error: (e: unknown) => got.push(e) });
    source.next(1);
    source.error('lost');
    await microtask();
    expect(got).toEqual([1, 'lost']);
  });
});

describe('factsAs', () => {
  it('maps each fact to its event and drops the ones that are none', () => {
    const source = new Subject<number>();
    const got: string[] = [];
    source.pipe(factsAs((n) => (n % 2 === 0 ? `even ${n}` : null))).subscribe((e) => got.push(e));
    for (const n of [1, 2, 3, 4]) source.next(n);
    expect(got).toEqual(['even 2', 'even 4']);
  });

  it('errors the stream when the mapping throws, and stops listening', () => {
    const source = new Subject<number>();
    const errors: unknown[] = [];
    source
      .pipe(
        factsAs((n) => {
          if (n === 2) throw new Error('bad fact');
          return n;
        }),
      )
      .subscribe({ error: (e: unknown) => errors.push(e) });
    source.next(1);
    source.next(2);
    expect(errors).toEqual([new Error('bad fact')]);
    expect(source.observed).toBe(false);
  });
});
