import { and, assertEvent, assign, sendTo, setup } from 'xstate';
import { mismatched } from '../../src/lib/layout/direction.ts';
import { hintsFrom } from '../../src/lib/layout/run.ts';
import type { Layout } from '../../src/lib/layout/types.ts';
import type { MachineDefinition } from '../../src/lib/model/types.ts';
import type { LayoutRequest, LayoutResult } from '../../src/lib/ports/layout.ts';
import { callbackNotProvided } from '../shared.ts';

/**
 * Keeps a diagram's layout in step with its definition. The `engine` (elkjs in a Web
 * Worker in the browser) is an invoked callback actor for the machine's whole life: it
 * starts the worker and its teardown ends it, so whoever stops this actor frees the
 * worker, and a restarted actor (React StrictMode's second mount) gets a fresh one, which
 * says `layout.engineReady` and is sent the request in hand again. One layout runs at a
 * time; definitions that arrive meanwhile collapse into one queued request, so a burst
 * of remote edits costs one more layout, not one per edit. Each request carries the
 * previous layout as hints, which keeps the picture still under small edits
 * (src/lib/layout/sizes.ts, elk-input.ts), and the pane's shape, so a chart far wider
 * than its pane is turned to flow downwards (src/lib/layout/direction.ts).
 */

/**
 * Intents: lay this definition out (from the open machine); the diagram pane's shape,
 * width / height (from the view), which the next layout may turn a chart to fit.
 */
export type LayoutIntent =
  { type: 'layout.request'; definition: MachineDefinition } | { type: 'layout.paneSized'; aspect: number };

/** Facts from the engine: it (re)started, or a layout finished (a failure is a result). */
export type LayoutFact =
  { type: 'layout.engineReady' } | { type: 'layout.done'; definition: MachineDefinition; result: LayoutResult };

export type LayoutEvent = LayoutIntent | LayoutFact;

/** What the machine tells its engine. */
export type LayoutCommand = { type: 'layout.run'; request: LayoutRequest };

export interface LayoutContext {
  /** The definition being laid out (or last laid out). */
  definition: MachineDefinition | null;
  /** The newest definition that arrived while a layout was running. */
  queued: MachineDefinition | null;
  layout: Layout | null;
  /** Which definition `layout` belongs to, so views can tell a stale picture. */
  laidOut: MachineDefinition | null;
  error: string | null;
  /** The pane's width / height, once the view has measured it. */
  aspect: number | null;
  /** The layout in hand went without the pane's shape and is made again with it: its picture is not shown. */
  reshaping: boolean;
}

export type LayoutTag = 'busy' | 'broken';

const ENGINE_FAILED = 'The diagram could not be laid out.';

export const layoutMachine = setup({
  types: {
    context: {} as LayoutContext,
    events: {} as LayoutEvent,
    tags: {} as LayoutTag,
  },
  actors: {
    engine: callbackNotProvided<LayoutCommand>('layout', 'engine'),
  },
  guards: {
    isNew: ({ context, event }) =>
      event.type === 'layout.request' && event.definition !== context.definition && event.definition !== context.queued,
    /** An answer for the definition in hand (a restarted engine may answer an older one). */
    isCurrent: ({ context, event }) => event.type === 'layout.done' && event.definition === context.definition,
    isShape: ({ event }) => event.type === 'layout.paneSized' && Number.isFinite(event.aspect) && event.aspect > 0,
    /** The first shape, for a picture laid out before the pane was measured and far from its shape. */
    turnsPicture: ({ context, event }) =>
      event.type === 'layout.paneSized' &&
      context.aspect === null &&
      context.layout !== null &&
      context.layout.direction === undefined &&
      mismatched(context.layout, event.aspect),
    /** The first shape while the first picture is being made without it. */
    isFirstShape: ({ context }) => context.aspect === null,
    hasQueued: ({ context }) => context.queued !== null,
    isReshaping: ({ context }) => context.reshaping,
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
    queueAgain: assign(({ context }) => ({ queued: context.queued ?? context.definition, reshaping: true })),
    stopReshaping: assign({ reshaping: false }),
    runLayout: sendTo('engine', ({ context }): LayoutCommand => ({
      type: 'layout.run',
      request: {
        definition: context.definition as MachineDefinition,
        hints: context.layout ? hintsFrom(context.layout) : null,
        aspect: context.aspect,
      },
    })),
    store: assign(({ event }) => {
      assertEvent(event, 'layout.done');
      const { result } = event;
      return result.ok ? { layout: result.layout, laidOut: null, error: null } : { error: result.message };
    }),
    markLaidOut: assign(({ context }) => ({ laidOut: context.definition })),
    rememberAspect: assign(({ event }) => {
      assertEvent(event, 'layout.paneSized');
      return { aspect: event.aspect };
    }),
    showEngineFailure: assign({ error: ENGINE_FAILED }),
  },
}).createMachine({
  id: 'layout',
  context: { definition: null, queued: null, layout: null, laidOut: null, error: null, aspect: null, reshaping: false },
  invoke: { id: 'engine', src: 'engine', onError: { target: '.broken', actions: 'showEngineFailure' } },
  // The shape informs the next layout; a resize lays out again only for the first shape (above).
  on: { 'layout.paneSized': { guard: 'isShape', actions: 'rememberAspect' } },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'layout.request': { guard: 'isNew', target: 'running', actions: 'take' },
        'layout.paneSized': {
          guard: and(['isShape', 'turnsPicture']),
          target: 'running',
          actions: 'rememberAspect',
        },
      },
    },
    running: {
      tags: ['busy'],
      entry: 'runLayout',
      on: {
        'layout.request': { guard: 'isNew', actions: 'queue' },
        'layout.done': [
          // A picture made without the pane's shape, about to be made again with it: skip it,
          // so the chart does not appear one way and turn a moment later.
          {
            guard: and(['isCurrent', 'isReshaping', 'hasQueued']),
            target: 'running',
            reenter: true,
            actions: ['takeQueued', 'stopReshaping'],
          },
          {
            guard: and(['isCurrent', 'hasQueued']),
            target: 'running',
            reenter: true,
            actions: ['store', 'takeQueued'],
          },
          { guard: 'isCurrent', target: 'idle', actions: ['store', 'markLaidOut'] },
        ],
        // A fresh engine knows nothing of the request in hand: send it again.
        'layout.engineReady': { actions: 'runLayout' },
        // The request in hand went without the pane's shape: lay it out again with it.
        'layout.paneSized': {
          guard: and(['isShape', 'isFirstShape']),
          actions: ['rememberAspect', 'queueAgain'],
        },
      },
    },
    /** The engine itself failed (no worker): nothing more can be laid out here. */
    broken: {
      tags: ['broken'],
    },
  },
});

export type LayoutMachine = typeof layoutMachine;
