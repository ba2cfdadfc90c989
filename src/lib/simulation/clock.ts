import type { ActorOptions, AnyActorLogic } from 'xstate';

type Clock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/**
 * The simulation's clock. XState schedules every delayed (`after`) event through the
 * actor's clock; this one never waits in real time: timers only fire when the
 * simulation's log says "advance time", one timer per step, earliest first (ties in
 * the order they were set), so every client fires the same timer at the same step.
 */
export class StepClock implements Clock {
  private nowMs = 0;
  private nextId = 1;
  private readonly timers = new Map<number, { due: number; fn: () => void }>();

  now(): number {
    return this.nowMs;
  }

  setTimeout(fn: (...args: unknown[]) => void, timeout: number): number {
    const id = this.nextId++;
    this.timers.set(id, { due: this.nowMs + Math.max(0, Number.isFinite(timeout) ? timeout : 0), fn: () => fn() });
    return id;
  }

  clearTimeout(id: unknown): void {
    this.timers.delete(id as number);
  }

  /** The pending timer that fires next, or null when none is set. */
  next(): { id: number; due: number } | null {
    let best: { id: number; due: number } | null = null;
    for (const [id, t] of this.timers) {
      if (best === null || t.due < best.due || (t.due === best.due && id < best.id)) best = { id, due: t.due };
    }
    return best;
  }

  /** Each pending timer's time left, in the order they were set. */
  remaining(): number[] {
    return [...this.timers.values()].map((t) => t.due - this.nowMs);
  }

  /** How many timers are pending. */
  pending(): number {
    return this.timers.size;
  }

  /** Moves time to the next timer and fires it; false when nothing was pending. */
  fireNext(): boolean {
    const next = this.next();
    if (next === null) return false;
    const timer = this.timers.get(next.id);
    this.timers.delete(next.id);
    this.nowMs = Math.max(this.nowMs, next.due);
    timer?.fn();
    return true;
  }
}
