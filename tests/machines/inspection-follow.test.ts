import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromEventObservable, fromPromise } from 'xstate';
import {
  inspectionFollowMachine,
  type FollowCommand,
  type FollowInput,
} from '../../machines/inspection/inspection-follow.machine.ts';
import { inspectionDiagramMachine } from '../../machines/inspection/inspection-diagram.machine.ts';
import { inspectionSessionMachine } from '../../machines/inspection/inspection-session.machine.ts';
import { inspectionMachine } from '../../machines/inspection/inspection.machine.ts';
import type { StoredInspectionEvent } from '../../src/lib/inspection/protocol.ts';
import type { FollowFact, InspectionLook } from '../../src/lib/ports/inspection-follow.ts';
import type { Layout } from '../../src/lib/layout/types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type {
  InspectionFeedEvent,
  InspectionResult,
  InspectionSession,
  InspectionSource,
} from '../../src/lib/ports/inspection.ts';

type Loaded = InspectionResult<{ sources: InspectionSource[]; sessions: InspectionSession[] }>;
type Laid = { definition: MachineDefinition; layout: Layout } | null;

/**
 * Follow mode on the inspection machine with a fake follow channel: a presenter's
 * look goes out on every change they choose; a follower's page shows the presenter's session,
 * actor and position; choosing something oneself stops following; a presenter who stops ends it.
 */

const DEFINITION = JSON.stringify({ id: 'toggle', initial: 'off', states: { off: {}, on: {} } });
const events = (sessionId: string): StoredInspectionEvent[] => [
  {
    seq: 1,
    session_id: sessionId,
    received_at: '2026-11-24T00:00:00Z',
    body: { type: '@xstate.actor', sessionId: 'x:0', _version: '0.7.2', name: 'toggle', definition: DEFINITION },
  },
];

function arrange(userId: string) {
  const facts = new Subject<FollowFact>();
  const sent: FollowCommand[] = [];
  const laid: string[] = [];
  const follow = inspectionFollowMachine.provide({
    actors: {
      channel: fromCallback<FollowCommand, FollowInput>(({ sendBack, receive }) => {
        const sub = facts.subscribe((f) => sendBack(f));
        receive((c) => sent.push(c));
        return () => sub.unsubscribe();
      }),
    },
  });
  const actor = createActor(
    inspectionMachine.provide({
      actors: {
        follow,
        load: fromPromise<Loaded, { projectId: string }>(() =>
          Promise.resolve({ ok: true as const, value: { sources: [], sessions: [] } }),
        ),
        feed: fromEventObservable<InspectionFeedEvent, { projectId: string }>(() => new Subject<InspectionFeedEvent>()),
        session: inspectionSessionMachine.provide({
          actors: {
            loadEvents: fromPromise<InspectionResult<StoredInspectionEvent[]>, { sessionId: string; afterSeq: number }>(
              ({ input }: { input: { sessionId: string; afterSeq: number } }) =>
                Promise.resolve({ ok: true as const, value: input.afterSeq === 0 ? events(input.sessionId) : [] }),
            ),
          },
        }),
        diagram: inspectionDiagramMachine.provide({
          actors: {
            layoutDiagram: fromPromise<Laid, { config: Record<string, unknown> }>(
              ({ input }: { input: { config: Record<string, unknown> } }) => {
                laid.push(String(input.config.id));
                return Promise.resolve(null);
              },
            ),
          },
        }),
      },
    }),
    { input: { projectId: 'p-1', isOwner: false, userId } },
  ).start();
  const followSnapshot = () =>
    (actor.getSnapshot().children.follow as ReturnType<typeof createActor<typeof follow>>).getSnapshot();
  const sessionEvents = () =>
    (
      actor.getSnapshot().children.session as ReturnType<typeof createActor<typeof inspectionSessionMachine>>
    ).getSnapshot().context.events;
  return { actor, facts, sent, laid, followSnapshot, sessionEvents };
}

const settle = () => new Promise((r) => setTimeout(r, 0));
const look = (sessionId: string | null, actorId: string | null, position: number | null): InspectionLook => ({
  sessionId,
  actorId,
  position,
});

describe('follow mode on the inspection machine', () => {
  it("a presenter's chosen looks go out, from the look they start with", async () => {
    const { actor, facts, sent } = arrange('ada');
    await settle();
    facts.next({ type: 'follow.joined' });
    expect(sent).toEqual([{ type: 'send.ask' }]);
    actor.send({ type: 'inspection.selectSession', sessionId: 'ses-1' });
    actor.send({ type: 'inspection.present' });
    expect(sent.at(-1)).toEqual({ type: 'send.present', look: look('ses-1', null, null) });
    await settle();
    actor.send({ type: 'inspection.selectActor', actorId: 'x:0' });
    expect(sent.at(-1)).toEqual({ type: 'send.present', look: look('ses-1', 'x:0', null) });
    actor.send({ type: 'inspection.scrub', position: 1 });
    expect(sent.at(-1)).toEqual({ type: 'send.present', look: look('ses-1', 'x:0', 1) });
    facts.next({ type: 'follow.asked', userId: 'bo' });
    expect(sent.at(-1)).toEqual({ type: 'send.present', look: look('ses-1', 'x:0', 1) });
    actor.send({ type: 'inspection.stopPresenting' });
    expect(sent.at(-1)).toEqual({ type: 'send.present', look: null });
  });

  it("a follower's page shows the presenter's session, actor and position, and stops following on its own choice", async () => {
    const { actor, facts, laid, followSnapshot, sessionEvents } = arrange('bo');
    await settle();
    facts.next({ type: 'follow.joined' });
    facts.next({ type: 'follow.presented', presenter: { userId: 'ada', look: look('ses-1', 'x:0', null) } });
    actor.send({ type: 'inspection.follow', userId: 'ada' });
    expect(followSnapshot().hasTag('following')).toBe(true);
    expect(actor.getSnapshot().context).toMatchObject({ sessionId: 'ses-1', actorId: 'x:0', position: null });
    await settle();
    await settle();
    // The events read, the actor's diagram is laid out from its definition.
    expect(sessionEvents()).toHaveLength(1);
    expect(laid).toContain('toggle');

    facts.next({ type: 'follow.presented', presenter: { userId: 'ada', look: look('ses-1', 'x:0', 1) } });
    expect(actor.getSnapshot().context.position).toBe(1);
    // Live events picking nothing new do not end following; choosing a position does.
    actor.send({ type: 'inspection.followLive' });
    expect(followSnapshot().hasTag('following')).toBe(false);
    facts.next({ type: 'follow.presented', presenter: { userId: 'ada', look: look('ses-1', 'x:0', 0) } });
    expect(actor.getSnapshot().context.position).toBeNull();
  });

  it('a presenter who stops ends following; nobody follows themselves or someone not presenting', async () => {
    const { actor, facts, followSnapshot } = arrange('bo');
    await settle();
    facts.next({ type: 'follow.joined' });
    actor.send({ type: 'inspection.follow', userId: 'cy' });
    expect(followSnapshot().hasTag('following')).toBe(false);
    facts.next({ type: 'follow.presented', presenter: { userId: 'bo', look: look(null, null, null) } });
    actor.send({ type: 'inspection.follow', userId: 'bo' });
    expect(followSnapshot().hasTag('following')).toBe(false);
    facts.next({ type: 'follow.presented', presenter: { userId: 'ada', look: look(null, null, null) } });
    actor.send({ type: 'inspection.follow', userId: 'ada' });
    expect(followSnapshot().context.followed).toBe('ada');
    facts.next({ type: 'follow.stopped', userId: 'ada' });
    expect(followSnapshot().hasTag('following')).toBe(false);
    expect(followSnapshot().context).toMatchObject({ followed: null, presenters: [] });
  });
});
