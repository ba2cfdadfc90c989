import type { BenchContext } from '../lib.ts';
import { ms, since, summarize } from '../lib.ts';
import {
  applyOp,
  counterIds,
  exportXState,
  importXState,
  invert,
  validateDefinition,
  type JsonObject,
  type MachineDefinition,
  type Op,
} from '../../src/lib/model/index.ts';

/**
 * The pure model on a large chart: a generated 1,000-state config (nested compounds,
 * parallel regions, two transitions per leaf). Figures only; no backend needed.
 */

function generatedConfig(states: number): JsonObject {
  let made = 1;
  const build = (depth: number, name: string): JsonObject => {
    if (made >= states || depth > 3) return { on: { NEXT: `#big.${name}`, RESET: '#big' } };
    const children: JsonObject = {};
    const width = depth === 0 ? 10 : 9;
    for (let i = 0; i < width && made < states; i++) {
      made++;
      children[`s${i}`] = build(depth + 1, `${name}.s${i}`.replace(/^\./, ''));
    }
    const keys = Object.keys(children);
    return depth === 2 ? { type: 'parallel', states: children } : { initial: keys[0] ?? null, states: children };
  };
  return { id: 'big', ...build(0, '') };
}

function time<T>(fn: () => T): { ms: number; value: T } {
  const start = process.hrtime.bigint();
  const value = fn();
  return { ms: since(start), value };
}

export async function run(ctx: BenchContext): Promise<void> {
  ctx.section('model (src/lib/model): 1,000-state definition');
  const config = generatedConfig(1000);
  const imported = time(() => importXState(config, { ids: counterIds('b') }));
  const def: MachineDefinition = imported.value;
  const count = Object.keys(def.states).length;
  ctx.report(
    `import XState config (${count} states, ${Object.keys(def.transitions).length} transitions)`,
    ms(imported.ms),
  );
  ctx.report('export XState config', ms(time(() => exportXState(def)).ms));
  ctx.report('validate (incl. reachability)', ms(time(() => validateDefinition(def)).ms));

  const ids = Object.keys(def.states).filter((id) => id !== def.root);
  const transitions = Object.keys(def.transitions);
  const ops: Op[] = [];
  for (let i = 0; i < 2000; i++) {
    const id = ids[(i * 7919) % ids.length] as string;
    const t = transitions[(i * 104729) % transitions.length] as string;
    switch (i % 4) {
      case 0:
        ops.push({ type: 'state.update', id, changes: { description: `note ${i}` } });
        break;
      case 1:
        ops.push({ type: 'transition.update', id: t, changes: { guard: { type: `g${i}` } } });
        break;
      case 2:
        ops.push({ type: 'state.add', id: `s_new_${i}`, parent: id, key: `n${i}`, stateType: 'atomic', index: null });
        break;
      default:
        ops.push({ type: 'transition.retarget', id: t, targets: [id] });
    }
  }
  const applyTimes: number[] = [];
  let current = def;
  const start = process.hrtime.bigint();
  for (const op of ops) {
    const s = process.hrtime.bigint();
    current = applyOp(current, op);
    applyTimes.push(since(s));
  }
  const total = since(start);
  const a = summarize(applyTimes);
  ctx.report('applyOp throughput (2,000 mixed ops)', `${Math.round(ops.length / (total / 1000))} ops/s`);
  ctx.report('applyOp p50 / p99', `${ms(a.p50)} / ${ms(a.p99)}`);

  const del = ids[3] as string;
  const deleted = time(() => applyOp(def, { type: 'state.delete', id: del }));
  const inverse = time(() => invert(def, { type: 'state.delete', id: del }));
  ctx.report('delete a top-level subtree (~100 states)', ms(deleted.ms));
  ctx.report('invert that delete (restore ops)', ms(inverse.ms));
  await Promise.resolve();
}
