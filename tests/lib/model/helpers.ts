import fs from 'node:fs';
import path from 'node:path';
import { createMachine, type AnyStateMachine, type AnyStateNode } from 'xstate';
import { keyPathOf, type JsonObject, type MachineDefinition, type StateId } from '../../../src/lib/model/index.ts';

export const FIXTURES = path.resolve('tests/fixtures/machines');

export function fixtures(): { name: string; text: string; config: JsonObject }[] {
  return fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const text = fs.readFileSync(path.join(FIXTURES, f), 'utf8');
      return { name: f, text, config: JSON.parse(text) as JsonObject };
    });
}

/** Object key order of every `states` map, root first: the order people wrote states in. */
export function stateKeyOrder(config: JsonObject, at = ''): string[] {
  const states = config.states;
  if (typeof states !== 'object' || states === null || Array.isArray(states)) return [];
  const out = [`${at}: ${Object.keys(states).join(',')}`];
  for (const [k, v] of Object.entries(states)) {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push(...stateKeyOrder(v, `${at}/${k}`));
  }
  return out;
}

function xstateNode(machine: AnyStateMachine, keys: string[]): AnyStateNode {
  let node: AnyStateNode = machine.root;
  for (const k of keys) {
    const next = node.states[k];
    if (!next) throw new Error(`XState has no state ${keys.join('.')}`);
    node = next;
  }
  return node;
}

/**
 * Every state's transitions as XState itself resolves them from `config`, next to the
 * model's, both as sorted lists of target-id lists: proves our target resolution and
 * our export agree with XState's.
 */
export function targetsBothWays(
  config: JsonObject,
  def: MachineDefinition,
): { xstate: Record<string, string[]>; model: Record<string, string[]> } {
  const machine = createMachine(config as Parameters<typeof createMachine>[0]);
  const xstate: Record<string, string[]> = {};
  const model: Record<string, string[]> = {};
  const idOf = (id: StateId): string => xstateNode(machine, keyPathOf(def, id)).id;
  for (const id of Object.keys(def.states)) {
    const keys = keyPathOf(def, id);
    const node = xstateNode(machine, keys);
    const name = keys.join('.') || '(root)';
    const lists: string[] = [];
    for (const ts of node.transitions.values())
      for (const t of ts) lists.push(JSON.stringify((t.target ?? []).map((n) => n.id)));
    for (const t of node.always ?? []) lists.push(JSON.stringify((t.target ?? []).map((n) => n.id)));
    xstate[name] = lists.sort();
    model[name] = Object.values(def.transitions)
      .filter((t) => t.source === id)
      .map((t) => JSON.stringify(t.targets.map(idOf)))
      .sort();
  }
  return { xstate, model };
}

function implName(a: unknown): string {
  if (typeof a === 'string') return a;
  if (typeof a === 'object' && a !== null && 'type' in a && typeof a.type === 'string') return a.type;
  if (typeof a === 'function') return 'type' in a && typeof a.type === 'string' ? a.type : a.name || '(inline)';
  return '(inline)';
}

/**
 * What a machine means, read from XState's own resolved state nodes: ids, types,
 * initial states, tags, entry/exit, invocations and every transition (event, targets,
 * guard and action names, reenter). Params are left out: dynamic params are functions
 * in a machine and `{ $expr }` data in its JSON config.
 */
export function semantics(machine: AnyStateMachine): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (node: AnyStateNode): void => {
    const transitions: string[] = [];
    const describe = (
      event: string,
      t: {
        target?: readonly AnyStateNode[] | undefined;
        guard?: unknown;
        actions: readonly unknown[];
        reenter: boolean;
      },
    ): string =>
      JSON.stringify({
        event,
        targets: (t.target ?? []).map((n) => n.id),
        guard: t.guard === undefined ? null : implName(t.guard),
        actions: t.actions.map(implName),
        reenter: t.reenter,
      });
    for (const [event, ts] of node.transitions) for (const t of ts) transitions.push(describe(event, t));
    for (const t of node.always ?? []) transitions.push(describe('(always)', t));
    out[node.id] = {
      type: node.type,
      history: node.history,
      initial: node.type === 'compound' ? node.initial.target.map((n) => n.id) : null,
      tags: [...node.tags],
      entry: node.entry.map(implName),
      exit: node.exit.map(implName),
      invoke: node.invoke.map((i) => ({
        src: typeof i.src === 'string' ? i.src : '(logic)',
        id: i.id,
        systemId: i.systemId ?? null,
      })),
      transitions,
      children: Object.keys(node.states),
    };
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(machine.root);
  return out;
}

export function machineFrom(config: JsonObject): AnyStateMachine {
  return createMachine(config as Parameters<typeof createMachine>[0]);
}
