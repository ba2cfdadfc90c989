import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ActorLogic, AnyMachineSnapshot, EventObject, StateValue } from 'xstate';
import {
  getAdjacencyMap,
  getShortestPaths,
  getStateNodes,
  serializeSnapshot,
  type AdjacencyValue,
  type AnyStateNode,
  type TraversalOptions,
} from 'xstate/graph';

/**
 * The path tests, once for every machine: traverse the machine's
 * graph with a finite set of events, check every state node is reached, then replay each
 * shortest path and every edge on the machine running with the test's fakes. The test
 * file says only what is particular to its machine: the events, the traversal's filter
 * and serialization, how one graph event is driven, and what a replay must reproduce.
 */

export interface MachinePaths<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject, TInput> {
  /** The machine (its root names the state nodes every path must cover between them). */
  machine: ActorLogic<TSnapshot, TEvent, TInput> & { root: AnyStateNode };
  traversal: TraversalOptions<TSnapshot, TEvent, TInput>;
  /** Starts the machine with fakes and drives it through the steps; returns the running actor. */
  replay: (steps: readonly TEvent[]) => Promise<{ getSnapshot(): TSnapshot; stop(): void }>;
  /** What of a snapshot a replay must reproduce; compared with `toEqual`. */
  observe: (snapshot: TSnapshot) => unknown;
  /** A floor on the edges taken, so a traversal that found next to nothing fails. */
  minEdges: number;
  /** Run each test under vitest's fake timers (delays are taken by advancing them). */
  fakeTimers?: boolean;
  /** For the edge test of a large graph. */
  timeout?: number;
}

export function describeMachinePaths<TSnapshot extends AnyMachineSnapshot, TEvent extends EventObject, TInput>(
  name: string,
  suite: MachinePaths<TSnapshot, TEvent, TInput>,
): void {
  const { machine, traversal, replay, observe, minEdges } = suite;
  // The adjacency map is keyed by the traversal's serialization, so a path's end is looked up by the same.
  const serialize = (snapshot: TSnapshot) => (traversal.serializeState ?? serializeSnapshot)(snapshot, undefined);

  describe(`${name} paths`, () => {
    if (suite.fakeTimers) {
      beforeEach(() => vi.useFakeTimers());
      afterEach(() => vi.useRealTimers());
    }

    const paths = getShortestPaths(machine, traversal);

    it('reaches every state node by some path', () => {
      const unreached = getStateNodes(machine.root)
        .filter((node) => node.path.length > 0)
        .filter((node) => !paths.some((p) => p.state.matches(leafValue(node.path))))
        .map((node) => node.path.join('.'));
      expect(unreached).toEqual([]);
    });

    it.each(paths.map((p) => [p.steps.map((s) => s.event.type).join(' → ') || '(initial)', p] as const))(
      'replays %s',
      async (_label, path) => {
        const actor = await replay(path.steps.map((s) => s.event));
        expect(observe(actor.getSnapshot())).toEqual(observe(path.state));
        actor.stop();
      },
    );

    it(
      'takes every edge of the graph on the running machine',
      async () => {
        const adjacency = getAdjacencyMap(machine, traversal);
        const pathTo = new Map(paths.map((p) => [serialize(p.state), p]));
        let edges = 0;
        for (const [vertex, { transitions }] of Object.entries(adjacency) as [
          string,
          AdjacencyValue<TSnapshot, TEvent>,
        ][]) {
          const prefix = pathTo.get(vertex);
          expect(prefix, `a path to ${vertex}`).toBeDefined();
          for (const edge of Object.values(transitions)) {
            const actor = await replay([...(prefix?.steps ?? []).map((s) => s.event), edge.event]);
            expect(observe(actor.getSnapshot()), `${vertex} --${edge.event.type}-->`).toEqual(observe(edge.state));
            actor.stop();
            edges += 1;
          }
        }
        expect(edges).toBeGreaterThan(minEdges);
        console.info(`${name}: ${paths.length} shortest paths, ${edges} edges replayed`);
      },
      suite.timeout,
    );
  });
}

/** A request's outcome as the graph names it: `xstate.done.actor.<name>` or `xstate.error.actor.<name>`. */
export interface RequestOutcome {
  name: string;
  settled: 'done' | 'error';
  output: unknown;
  error: unknown;
}

export function requestOutcome(event: { type: string; output?: unknown; error?: unknown }): RequestOutcome | null {
  const match = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event.type);
  if (!match) return null;
  return { name: match[2] as string, settled: match[1] as 'done' | 'error', output: event.output, error: event.error };
}

/** A fake adapter that holds requests open until the test settles them (see held-requests.ts). */
export interface SettlesRequests<Name extends string> {
  settle(name: Name, output: unknown): Promise<void>;
  fail(name: Name, error: unknown): Promise<void>;
}

/** Finishes the fake's open request the way the graph event says; false when the event is no request outcome. */
export async function settleRequest<Name extends string>(
  fake: SettlesRequests<Name>,
  event: { type: string; output?: unknown; error?: unknown },
): Promise<boolean> {
  const outcome = requestOutcome(event);
  if (!outcome) return false;
  // The graph's events name only the machine's own actors, which are the fake's requests.
  const name = outcome.name as Name;
  if (outcome.settled === 'done') await fake.settle(name, outcome.output);
  else await fake.fail(name, outcome.error);
  return true;
}

/** The state value that a state node's path names, for `snapshot.matches`. */
const leafValue = (path: string[]): StateValue =>
  path.length === 1 ? (path[0] as string) : { [path[0] as string]: leafValue(path.slice(1)) };
