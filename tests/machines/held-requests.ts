import { fromPromise } from 'xstate';

/** A request a fake adapter holds open until the test settles it. */
export interface HeldRequest {
  input: unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Promise actors whose outcome the test decides: each started request is recorded in
 * `calls` and held until `take(name)` hands it to the test to resolve or reject, or until
 * `settle`/`fail` finish it and then await `flush`, the fake's way of letting the
 * machine's promise callbacks run (under fake timers or not).
 */
export function heldRequests<Name extends string>(flush: () => Promise<void> = () => Promise.resolve()) {
  const pending = new Map<Name, HeldRequest>();
  const calls: { name: Name; input: unknown }[] = [];
  const request = <TOut, TIn>(name: Name) =>
    fromPromise<TOut, TIn>(
      ({ input }) =>
        new Promise<TOut>((resolve, reject) => {
          calls.push({ name, input });
          pending.set(name, { input, resolve: resolve as (value: unknown) => void, reject });
        }),
    );
  const take = (name: Name): HeldRequest => {
    const open = pending.get(name);
    if (!open) throw new Error(`no ${name} request is open`);
    pending.delete(name);
    return open;
  };
  return {
    request,
    take,
    calls,
    pending,
    isOpen: (name: Name) => pending.has(name),
    settle: async (name: Name, output: unknown) => {
      take(name).resolve(output);
      await flush();
    },
    fail: async (name: Name, error: unknown) => {
      take(name).reject(error);
      await flush();
    },
  };
}
