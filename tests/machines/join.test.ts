import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, type SnapshotFrom } from 'xstate';
import { joinMachine, type JoinEvent, type JoinInput } from '../../machines/account/join.machine.ts';
import type { Result } from '../../src/lib/ports/room.ts';
import { describeMachinePaths, settleRequest } from './machine-paths.ts';

/** The join machine: every state and edge, replayed with a fake join request. */

type Snapshot = SnapshotFrom<typeof joinMachine>;

function start(input: JoinInput = { kind: 'invite', token: 'abc' }) {
  const pending: { resolve: (r: Result<string>) => void; reject: (e: unknown) => void; input: JoinInput }[] = [];
  const join = fromPromise<Result<string>, JoinInput>(
    ({ input: given }) => new Promise((resolve, reject) => pending.push({ resolve, reject, input: given })),
  );
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
});

const graphEvents = [
  { type: 'xstate.done.actor.join', output: { ok: true, value: 'p1' } },
  { type: 'xstate.done.actor.join', output: { ok: false, error: { code: 'invalid_link', message: 'bad' } } },
  { type: 'xstate.error.actor.join', error: new Error('x') },
  { type: 'join.retry' },
] as unknown as JoinEvent[];

async function replay(steps: readonly JoinEvent[]) {
  const { actor, pending, flush } = start();
  // The machine's one request: the newest pending join is the one it waits on.
  const requests = {
    settle: async (_name: 'join', output: unknown) => {
      pending.at(-1)?.resolve(output as Result<string>);
      await flush();
    },
    fail: async (_name: 'join', error: unknown) => {
      pending.at(-1)?.reject(error);
      await flush();
    },
  };
  for (const event of steps) {
    if (await settleRequest(requests, event)) continue;
    actor.send(event);
    await flush();
  }
  return actor;
}

describeMachinePaths('join machine', {
  machine: joinMachine,
  traversal: {
    events: graphEvents,
    input: { kind: 'invite', token: 'abc' },
    filterEvents: (s: Snapshot, e: JoinEvent) => s.can(e),
  },
  replay,
  observe: (snapshot) => ({ value: snapshot.value, context: snapshot.context }),
  minEdges: 3,
});
