import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, type SnapshotFrom } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getStateNodes, serializeSnapshot, type SerializedSnapshot } from 'xstate/graph';
import { joinMachine, type JoinEvent, type JoinInput } from '../../machines/join.machine.ts';
import type { Result } from '../../src/lib/ports/room.ts';

/** The join machine: every state and edge, replayed with a fake join request. */

type Snapshot = SnapshotFrom<typeof joinMachine>;

function start(input: JoinInput = { kind: 'invite', token: 'abc' }) {
  const pending: { resolve: (r: Result<string>) => void; reject: (e: unknown) => void; input: JoinInput }[] = [];
  const join = fromPromise<Result<string>, JoinInput>(({ input: given }) => new Promise((resolve, reject) => pending.push({ resolve, reject, input: given })));
  const actor = createActor(joinMachine.provide({ actors: { join } }), { input }).start();
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { actor, pending, flush, snap: () => actor.getSnapshot() };
}

describe('join machine', () => {
  it('joins and keeps the project id', async () => {
    const { pending, flush, snap } = start({ kind: 'share', token: 'tok' });
    expect(pending[0]?.input).toEqual({ kind: 'share', token: 'tok' });
    pending[0]?.resolve({ ok: true, value: 'p1' });
    await flush();
    expect(snap().hasTag('joined')).toBe(true);
    expect(snap().context.projectId).toBe('p1');
    expect(snap().status).toBe('done');
  });

  it('keeps a refusal’s code for the view, and retries', async () => {
    const { actor, pending, flush, snap } = start();
    pending[0]?.resolve({ ok: false, error: { code: 'invite_expired', message: 'This invite link has expired.' } });
    await flush();
    expect(snap().context.error).toEqual({ code: 'invite_expired', message: 'This invite link has expired.' });
    actor.send({ type: 'join.retry' });
    expect(snap().hasTag('joining')).toBe(true);
    pending[1]?.reject(new Error('bug'));
    await flush();
    expect(snap().context.error?.code).toBe('unexpected');
  });

  it('every state and edge of the graph, replayed', async () => {
    const events = [
      { type: 'xstate.done.actor.join', output: { ok: true, value: 'p1' } },
      { type: 'xstate.done.actor.join', output: { ok: false, error: { code: 'invalid_link', message: 'bad' } } },
      { type: 'xstate.error.actor.join', error: new Error('x') },
      { type: 'join.retry' },
    ] as unknown as JoinEvent[];
    const traversal = { events, input: { kind: 'invite', token: 'abc' } as JoinInput, filterEvents: (s: Snapshot, e: JoinEvent) => s.can(e) };
    const paths = getShortestPaths(joinMachine, traversal);
    const names = getStateNodes(joinMachine.root).filter((n) => n.path.length > 0).map((n) => n.path.join('.'));
    expect(names.filter((name) => !paths.some((p) => p.state.matches(name as never)))).toEqual([]);
    const adjacency = getAdjacencyMap(joinMachine, traversal);
    let edges = 0;
    for (const vertex of Object.keys(adjacency) as SerializedSnapshot[]) {
      const prefix = paths.find((p) => serializeSnapshot(p.state) === vertex);
      expect(prefix, vertex).toBeDefined();
      for (const edge of Object.values(adjacency[vertex]?.transitions ?? {})) {
        const { actor, pending, flush } = start();
        for (const event of [...(prefix?.steps ?? []).map((s) => s.event), edge.event] as { type: string; output?: Result<string>; error?: unknown }[]) {
          if (event.type === 'xstate.done.actor.join') pending.at(-1)?.resolve(event.output as Result<string>);
          else if (event.type === 'xstate.error.actor.join') pending.at(-1)?.reject(event.error);
          else actor.send(event as JoinEvent);
          await flush();
        }
        expect(actor.getSnapshot().value).toEqual(edge.state.value);
        expect(actor.getSnapshot().context).toEqual(edge.state.context);
        edges += 1;
      }
    }
    expect(edges).toBeGreaterThanOrEqual(4);
  });
});
