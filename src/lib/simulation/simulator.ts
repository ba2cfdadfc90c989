import { createActor, type AnyActor, type AnyMachineSnapshot, type StateValue } from 'xstate';
import type { Json } from '../model/types.ts';
import { sharedSimMachine, type HookSlot, type SimHooks } from './build.ts';
import { StepClock } from './clock.ts';
import type { IgnoredReason, SimLogEntry, SimSetup, SimStep, SimView } from './types.ts';

/** Events a person may send: anything but XState's own, except an invoked actor's done/error. */
const ACTOR_OUTCOME = /^xstate\.(done|error)\.actor\./;
export function isSendableType(type: string): boolean {
  return type.length > 0 && (!type.startsWith('xstate.') || ACTOR_OUTCOME.test(type));
}

/** Dot paths of every active state in a state value, parents first. */
export function activePathsOf(value: StateValue): string[] {
  const out: string[] = [];
  const walk = (v: StateValue, prefix: string): void => {
    if (typeof v === 'string') {
      out.push(prefix === '' ? v : `${prefix}.${v}`);
      return;
    }
    for (const [key, child] of Object.entries(v)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      out.push(path);
      if (child !== undefined) walk(child, path);
    }
  };
  walk(value, '');
  return out;
}

/**
 * One simulation running: a real XState actor over the definition (see build.ts) on a
 * StepClock. `apply` takes log entries in seq order; the state after N entries depends
 * only on the setup and those entries, so replaying a log anywhere gives the same state.
 */
export class Simulator {
  private readonly hooks: SimHooks;
  /** Shared with every simulator of this machine: pointed at `hooks` before each use. */
  private readonly slot: HookSlot;
  private readonly clock = new StepClock();
  private readonly actor: AnyActor;
  private readonly startActions;
  private lastSeq = 0;

  constructor(readonly setup: SimSetup) {
    this.hooks = { guards: { ...setup.guards }, actions: [] };
    const built = sharedSimMachine(setup.definition, setup.context ?? setup.definition.context ?? {});
    this.slot = built.slot;
    this.actor = createActor(built.machine, { clock: this.clock });
    // A step past MAX_MICROSTEPS (a cycle of eventless transitions) stops the actor with an
    // error: observed here, so it ends the run (`machine_error`) instead of being thrown.
    this.actor.subscribe({ error: () => undefined });
    this.slot.hooks = this.hooks;
    this.actor.start();
    this.startActions = this.takeActions();
  }

  /** The seq of the last entry applied (0 before any). */
  get seq(): number {
    return this.lastSeq;
  }

  private snapshot(): AnyMachineSnapshot {
    return this.actor.getSnapshot() as AnyMachineSnapshot;
  }

  private takeActions() {
    const taken = this.hooks.actions;
    this.hooks.actions = [];
    return taken;
  }

  /** The first step: what starting the machine did (entry actions, initial `always`). */
  start(): SimStep {
    return { seq: 0, ignored: null, actions: this.startActions, ...this.view() };
  }

  view(): SimView {
    const snap = this.snapshot();
    return {
      activePaths: activePathsOf(snap.value as StateValue),
      context: snap.context as Json,
      children: Object.keys(snap.children as Record<string, unknown>).sort(),
      now: this.clock.now(),
      timers: this.clock.pending(),
      done: snap.status === 'done',
    };
  }

  /**
   * Everything that decides what the next entries do, as a string, without the clock's
   * absolute time: the state value, history, invoked children, status, context and each
   * pending timer (its event, its target, its time left). Two simulators with the same
   * key answer every entry alike (memo.ts relies on it). Null when the timers cannot be
   * told apart safely; the caller then keeps running the actor.
   */
  stateKey(): string | null {
    const snap = this.snapshot();
    const scheduled = Object.values(this.actor.system.getSnapshot()._scheduledEvents);
    const left = this.clock.remaining();
    if (scheduled.length !== left.length) return null;
    const timers = scheduled.map((t, i) => [
      t.event.type,
      t.target === this.actor ? '' : ((t.target as { id?: string } | undefined)?.id ?? '?'),
      left[i],
    ]);
    const history = Object.entries(snap.historyValue as Record<string, { id: string }[]>).map(([id, nodes]) => [
      id,
      nodes.map((n) => n.id),
    ]);
    return JSON.stringify([
      snap.value,
      history,
      Object.keys(snap.children as Record<string, unknown>).sort(),
      snap.status,
      snap.context,
      timers,
    ]);
  }

  /** Whether `type` would change anything now, given guard switches `guards`. */
  canSend(type: string, guards: SimSetup['guards']): boolean {
    if (!isSendableType(type) || this.snapshot().status !== 'active') return false;
    const saved = this.hooks.guards;
    this.hooks.guards = guards;
    this.slot.hooks = this.hooks;
    try {
      return this.snapshot().can({ type });
    } finally {
      this.hooks.guards = saved;
    }
  }

  /** Applies the entry numbered seq + 1; entries must come in order (see log.ts). */
  apply(entry: SimLogEntry): SimStep {
    const ignored = this.advance(entry);
    return { seq: entry.seq, ignored, actions: this.takeActions(), ...this.view() };
  }

  /** Applies an entry without describing the step (the fast path of a replay to the end). */
  advance(entry: SimLogEntry): IgnoredReason | null {
    if (entry.seq !== this.lastSeq + 1) throw new Error(`expected log entry ${this.lastSeq + 1}, got ${entry.seq}`);
    this.lastSeq = entry.seq;
    this.hooks.guards = entry.guards;
    this.hooks.actions = [];
    this.slot.hooks = this.hooks;
    return this.run(entry);
  }

  private run(entry: SimLogEntry): IgnoredReason | null {
    const before = this.snapshot();
    if (before.status === 'error') return 'machine_error';
    if (before.status !== 'active') return 'machine_done';
    if (entry.kind === 'time') return this.clock.fireNext() ? null : 'no_timer';
    const type = entry.type ?? '';
    if (!isSendableType(type)) return 'reserved_type';
    // An actor's error that nothing handles would put the whole machine in error (XState's
    // rule for a real child); a person sending it by hand only means "if it failed".
    if (type.startsWith('xstate.error.') && !before.can({ type })) return 'not_enabled';
    this.actor.send({ ...entry.payload, type });
    if (this.snapshot().status === 'error') return 'machine_error';
    // XState keeps the same snapshot when an event changes nothing.
    return this.snapshot() === before && this.hooks.actions.length === 0 ? 'not_enabled' : null;
  }

  stop(): void {
    this.slot.hooks = this.hooks;
    this.actor.stop();
  }
}
