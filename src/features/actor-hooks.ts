import { useSelector } from '@xstate/react';
import type { AnyActorRef, SnapshotFrom } from 'xstate';

/**
 * One slice of a child actor that may not exist (yet, or any more): `fallback` until it
 * does. Children live in their parent's snapshot (`snapshot.children.x`), so a view
 * reads the parent for the ref and the child for the slice.
 */
export function useChildSelector<TActor extends AnyActorRef, T>(
  actor: TActor | undefined,
  selector: (snapshot: SnapshotFrom<TActor>) => T,
  fallback: T,
  compare?: (a: T, b: T) => boolean,
): T {
  return useSelector(
    actor,
    (snapshot: SnapshotFrom<TActor> | undefined) => (snapshot === undefined ? fallback : selector(snapshot)),
    compare,
  );
}

export const sameStrings = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);
