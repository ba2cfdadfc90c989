import { indexPath, keyPath } from './paths.ts';
import { configPathOf, stateOf, transitionsFrom } from './tree.ts';
import type { MachineDefinition, Transition, TransitionEvent } from './types.ts';

/**
 * Where a transition sits in the exported config: `states.a.on.PAY`, `...on.PAY[1]`,
 * `...after["1000"]`, `...invoke.onDone`, `...invoke[1].onError[0]`. Mirrors the grouping
 * `exportXState` uses, so issues point at the text people see in the code view.
 */

function sameTrigger(a: TransitionEvent, b: TransitionEvent): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

export function transitionConfigPath(def: MachineDefinition, t: Transition): string {
  const source = stateOf(def, t.source);
  const base = configPathOf(def, t.source);
  const siblings = transitionsFrom(def, t.source).filter((o) => sameTrigger(o.event, t.event));
  const at = (p: string): string =>
    siblings.length > 1
      ? indexPath(
          p,
          siblings.findIndex((o) => o.id === t.id),
        )
      : p;
  const e = t.event;
  if (typeof e === 'string') return at(keyPath(keyPath(base, 'on'), e));
  if ('always' in e) return at(keyPath(base, 'always'));
  if ('after' in e) return at(keyPath(keyPath(base, 'after'), String(e.after)));
  if ('done' in e) return at(keyPath(base, 'onDone'));
  const i = source.invoke.findIndex((inv) => inv.uid === e.invoke);
  const invokePath = source.invoke.length > 1 ? indexPath(keyPath(base, 'invoke'), i) : keyPath(base, 'invoke');
  const key = e.outcome === 'done' ? 'onDone' : e.outcome === 'error' ? 'onError' : 'onSnapshot';
  return at(keyPath(invokePath, key));
}
