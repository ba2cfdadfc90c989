import { assertEvent, assign, fromPromise, setup } from 'xstate';
import { hintsFrom } from '../src/lib/layout/run.ts';
import type { Layout } from '../src/lib/layout/types.ts';
import type { MachineDefinition } from '../src/lib/model/types.ts';
import type { LayoutRequest, LayoutResult } from '../src/lib/ports/layout.ts';

/**
 * Keeps a diagram's layout in step with its definition. One layout runs at a time (the
 * `layout` actor: elkjs in a Web Worker in the browser); definitions that arrive meanwhile
 * collapse into one queued request, so a burst of remote edits costs one more layout, not
 * one per edit. Each request carries the previous layout as hints, which is what keeps
 * the picture still under small edits (src/lib/layout/sizes.ts, elk-input.ts).
 */

export type LayoutEvent = { type: 'layout.request'; definition: MachineDefinition };

export interface LayoutContext {
  /** The definition being laid out (or last laid out). */
  definition: MachineDefinition | null;
  /** The newest definition that arrived while a layout was running. */
  queued: MachineDefinition | null;
  layout: Layout | null;
  /** Which definition `layout` belongs to, so views can tell a stale picture. */
  laidOut: MachineDefinition | null;
  error: string | null;
}

export const layoutMachine = setup({
  types: {
    context: {} as LayoutContext,
    events: {} as LayoutEvent,
  },
  actors: {
    layout: fromPromise<LayoutResult, LayoutRequest>(() => Promise.reject(new Error('layout machine: provide the "layout" actor (src/features/canvas/)'))),
  },
  guards: {
    isNew: ({ context, event }) => event.definition !== context.definition && event.definition !== context.queued,
    hasQueued: ({ context }) => context.queued !== null,
  },
  actions: {
    take: assign(({ event }) => {
      assertEvent(event, 'layout.request');
      return { definition: event.definition, queued: null };
    }),
    queue: assign(({ event }) => {
      assertEvent(event, 'layout.request');
      return { queued: event.definition };
    }),
    takeQueued: assign(({ context }) => ({ definition: context.queued, queued: null })),
    store: assign((_, result: LayoutResult) =>
      result.ok ? { layout: result.layout, laidOut: null as MachineDefinition | null, error: null } : { error: result.message },
    ),
    markLaidOut: assign(({ context }) => ({ laidOut: context.definition })),
    fail: assign({ error: 'The diagram could not be laid out.' }),
  },
}).createMachine({
  id: 'layout',
  context: { definition: null, queued: null, layout: null, laidOut: null, error: null },
  initial: 'idle',
  states: {
    idle: {
      on: { 'layout.request': { guard: 'isNew', target: 'running', actions: 'take' } },
    },
    running: {
      tags: ['busy'],
      invoke: {
        src: 'layout',
        input: ({ context }) => ({ definition: context.definition as MachineDefinition, hints: context.layout ? hintsFrom(context.layout) : null }),
        onDone: [
          { guard: 'hasQueued', target: 'running', reenter: true, actions: [{ type: 'store', params: ({ event }) => event.output }, 'takeQueued'] },
          { target: 'idle', actions: [{ type: 'store', params: ({ event }) => event.output }, 'markLaidOut'] },
        ],
        onError: [
          { guard: 'hasQueued', target: 'running', reenter: true, actions: ['fail', 'takeQueued'] },
          { target: 'idle', actions: 'fail' },
        ],
      },
      on: { 'layout.request': { guard: 'isNew', actions: 'queue' } },
    },
  },
});
