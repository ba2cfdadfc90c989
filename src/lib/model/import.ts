import { randomIds } from './ids.ts';
import {
  IssueSink,
  checkKeys,
  delayOf,
  isObject,
  readActions,
  readGuard,
  readMeta,
  readString,
  readTags,
} from './import-parts.ts';
import { indexPath, keyPath } from './paths.ts';
import { resolveTargets, type PendingTarget } from './import-targets.ts';
import type {
  HistoryKind,
  IdGen,
  Invocation,
  Issue,
  Json,
  JsonObject,
  MachineDefinition,
  StateId,
  StateNode,
  StateType,
  Transition,
  TransitionEvent,
} from './types.ts';

/**
 * XState v5 JSON config -> MachineDefinition. Import reports what the model cannot
 * represent (bad shapes, unknown targets, an initial that is not a child, bad keys) as
 * errors with config paths; rules about a *representable* machine (missing initial,
 * unreachable states, ...) belong to `validateDefinition`, so a half-finished draft still
 * imports.
 */

export interface ImportOptions {
  ids?: IdGen;
  /** Display name; defaults to the machine id. */
  name?: string;
}

export interface ImportResult {
  /** null when import found errors. */
  definition: MachineDefinition | null;
  issues: Issue[];
}

export class ImportError extends Error {
  constructor(readonly issues: Issue[]) {
    super(
      `cannot import machine config: ${issues
        .filter((i) => i.severity === 'error')
        .map((i) => `${i.path || '(machine)'}: ${i.message}`)
        .join('; ')}`,
    );
    this.name = 'ImportError';
  }
}

const STATE_KEYS = [
  'id',
  'type',
  'initial',
  'states',
  'on',
  'always',
  'after',
  'entry',
  'exit',
  'invoke',
  'onDone',
  'tags',
  'description',
  'meta',
  'output',
  'history',
  'target',
] as const;
const ROOT_ONLY = ['context'] as const;
const V4_STATE: Record<string, string> = {
  activities: '"activities" is XState v4; use "invoke"',
  onEntry: '"onEntry" is XState v4; use "entry"',
  onExit: '"onExit" is XState v4; use "exit"',
  parallel: '"parallel: true" is XState v4; use "type": "parallel"',
};
const TRANSITION_KEYS = ['target', 'guard', 'actions', 'reenter', 'description', 'meta'] as const;
const V4_TRANSITION: Record<string, string> = {
  cond: '"cond" is XState v4; use "guard"',
  internal: '"internal" is XState v4; use "reenter" (the opposite sense)',
};
const INVOKE_KEYS = ['src', 'id', 'systemId', 'input', 'onDone', 'onError', 'onSnapshot'] as const;
const STATE_TYPES: readonly StateType[] = ['atomic', 'compound', 'parallel', 'final', 'history'];

class Importer {
  readonly sink = new IssueSink();
  readonly states: Record<StateId, StateNode> = {};
  readonly transitions: Record<string, Transition> = {};
  readonly pending: PendingTarget[] = [];
  readonly historyTargets: { state: StateId; raw: string; path: string }[] = [];
  constructor(private readonly ids: IdGen) {}

  state(config: Json, path: string, parent: StateId | null, key: string): StateId | null {
    if (!isObject(config)) {
      this.sink.error(path, parent === null ? 'the machine config must be a JSON object' : 'a state must be an object');
      return null;
    }
    checkKeys(this.sink, config, path, parent === null ? [...STATE_KEYS, ...ROOT_ONLY] : STATE_KEYS, V4_STATE);
    const id = this.ids('state');
    const node: StateNode = {
      id,
      key,
      parent,
      type: 'atomic',
      initial: null,
      children: [],
      history: null,
      historyTarget: null,
      entry: readActions(this.sink, config.entry, keyPath(path, 'entry')),
      exit: readActions(this.sink, config.exit, keyPath(path, 'exit')),
      invoke: [],
      tags: readTags(this.sink, config.tags, keyPath(path, 'tags')),
      description: readString(this.sink, config.description, keyPath(path, 'description')),
      meta: readMeta(this.sink, config.meta, keyPath(path, 'meta')),
      xstateId: parent === null ? null : readString(this.sink, config.id, keyPath(path, 'id')),
      output: config.output === undefined ? null : { value: config.output },
    };
    this.states[id] = node;
    node.type = this.typeOf(config, path, node);
    this.children(config, path, node);
    this.initial(config, path, node);
    this.allTransitions(config, path, node);
    return id;
  }

  private typeOf(config: JsonObject, path: string, node: StateNode): StateType {
    const hasChildren = isObject(config.states) && Object.keys(config.states).length > 0;
    let type: StateType = hasChildren ? 'compound' : 'atomic';
    if (config.type !== undefined) {
      if (typeof config.type === 'string' && (STATE_TYPES as readonly string[]).includes(config.type))
        type = config.type as StateType;
      else
        this.sink.error(
          keyPath(path, 'type'),
          `unknown state type ${JSON.stringify(config.type)} (use ${STATE_TYPES.join(', ')})`,
        );
    } else if (config.history !== undefined) {
      type = 'history';
    }
    if (config.history !== undefined) {
      if (config.history === 'shallow' || config.history === 'deep') node.history = config.history;
      else this.sink.error(keyPath(path, 'history'), 'history must be "shallow" or "deep"');
    }
    if (type === 'history') {
      node.history ??= 'shallow' satisfies HistoryKind;
      if (config.target !== undefined) {
        if (typeof config.target === 'string')
          this.historyTargets.push({ state: node.id, raw: config.target, path: keyPath(path, 'target') });
        else this.sink.error(keyPath(path, 'target'), 'a history target must be one state (a string)');
      }
    } else {
      if (config.history !== undefined)
        this.sink.warning(keyPath(path, 'history'), `"history" is ignored on a state of type "${type}"`);
      if (config.target !== undefined)
        this.sink.warning(keyPath(path, 'target'), `"target" is ignored on a state of type "${type}"`);
    }
    return type;
  }

  private children(config: JsonObject, path: string, node: StateNode): void {
    if (config.states === undefined) return;
    const statesPath = keyPath(path, 'states');
    if (!isObject(config.states)) {
      this.sink.error(statesPath, '"states" must be an object of child states by key');
      return;
    }
    for (const [key, child] of Object.entries(config.states)) {
      const childPath = keyPath(statesPath, key);
      if (key === '') this.sink.error(childPath, 'a state key must not be empty');
      else if (key.includes('.'))
        this.sink.error(childPath, `state key "${key}" must not contain "." (targets use it as a separator)`);
      else if (key.startsWith('#'))
        this.sink.error(childPath, `state key "${key}" must not start with "#" (targets use it for ids)`);
      const id = this.state(child, childPath, node.id, key);
      if (id !== null) node.children.push(id);
    }
  }

  private initial(config: JsonObject, path: string, node: StateNode): void {
    if (config.initial === undefined) return;
    const p = keyPath(path, 'initial');
    if (typeof config.initial !== 'string') {
      this.sink.error(p, 'initial must be the key of a child state');
      return;
    }
    const child = node.children.find((c) => this.states[c]?.key === config.initial);
    if (child === undefined) {
      const owner = node.parent === null ? 'the machine' : `"${node.key}"`;
      this.sink.error(p, `initial state "${config.initial}" is not a child of ${owner}`);
      return;
    }
    node.initial = child;
  }

  private allTransitions(config: JsonObject, path: string, node: StateNode): void {
    let order = 0;
    const add = (value: Json, p: string, event: TransitionEvent): void => {
      for (const t of this.transitionList(value, p, node.id, event)) t.order = order++;
    };
    if (config.on !== undefined) {
      const onPath = keyPath(path, 'on');
      if (!isObject(config.on)) this.sink.error(onPath, '"on" must be an object of transitions by event');
      else
        for (const [event, value] of Object.entries(config.on)) {
          if (event === '') this.sink.error(keyPath(onPath, event), 'an event name must not be empty');
          else add(value, keyPath(onPath, event), event);
        }
    }
    if (config.after !== undefined) {
      const afterPath = keyPath(path, 'after');
      if (!isObject(config.after)) this.sink.error(afterPath, '"after" must be an object of transitions by delay');
      else
        for (const [delay, value] of Object.entries(config.after))
          add(value, keyPath(afterPath, delay), { after: delayOf(delay) });
    }
    if (config.always !== undefined) add(config.always, keyPath(path, 'always'), { always: true });
    if (config.onDone !== undefined) add(config.onDone, keyPath(path, 'onDone'), { done: true });
    if (config.invoke !== undefined) {
      const invokePath = keyPath(path, 'invoke');
      const list = Array.isArray(config.invoke) ? config.invoke : [config.invoke];
      list.forEach((item, i) => {
        const p = Array.isArray(config.invoke) ? indexPath(invokePath, i) : invokePath;
        const inv = this.invocation(item, p);
        if (inv === null || !isObject(item)) return;
        node.invoke.push(inv);
        for (const [key, outcome] of [
          ['onDone', 'done'],
          ['onError', 'error'],
          ['onSnapshot', 'snapshot'],
        ] as const) {
          const value = item[key];
          if (value !== undefined) add(value, keyPath(p, key), { invoke: inv.uid, outcome });
        }
      });
    }
  }

  private invocation(item: Json, path: string): Invocation | null {
    if (!isObject(item)) {
      this.sink.error(path, 'an invocation must be an object with "src"');
      return null;
    }
    checkKeys(this.sink, item, path, INVOKE_KEYS);
    if (typeof item.src !== 'string' || item.src === '') {
      this.sink.error(keyPath(path, 'src'), 'an invocation needs "src": the name of an actor');
      return null;
    }
    const inv: Invocation = { uid: this.ids('invocation'), src: item.src };
    const id = readString(this.sink, item.id, keyPath(path, 'id'));
    if (id !== null) inv.id = id;
    const systemId = readString(this.sink, item.systemId, keyPath(path, 'systemId'));
    if (systemId !== null) inv.systemId = systemId;
    if (item.input !== undefined) inv.input = item.input;
    return inv;
  }

  private transitionList(value: Json, path: string, source: StateId, event: TransitionEvent): Transition[] {
    const items = Array.isArray(value) ? value : [value];
    const out: Transition[] = [];
    items.forEach((item, i) => {
      const t = this.transition(item, Array.isArray(value) ? indexPath(path, i) : path, source, event);
      if (t) out.push(t);
    });
    return out;
  }

  private transition(item: Json, path: string, source: StateId, event: TransitionEvent): Transition | null {
    const t: Transition = {
      id: this.ids('transition'),
      source,
      event,
      guard: null,
      actions: [],
      targets: [],
      reenter: false,
      description: null,
      meta: null,
      order: 0,
    };
    if (typeof item === 'string') {
      this.pending.push({ transition: t.id, source, raw: item, path });
    } else if (isObject(item)) {
      checkKeys(this.sink, item, path, TRANSITION_KEYS, V4_TRANSITION);
      const target = item.target;
      const targetPath = keyPath(path, 'target');
      if (typeof target === 'string') this.pending.push({ transition: t.id, source, raw: target, path: targetPath });
      else if (Array.isArray(target))
        target.forEach((raw, i) => {
          if (typeof raw === 'string')
            this.pending.push({ transition: t.id, source, raw, path: indexPath(targetPath, i) });
          else this.sink.error(indexPath(targetPath, i), 'a target must be a string');
        });
      else if (target !== undefined) this.sink.error(targetPath, 'target must be a string or an array of strings');
      t.guard = readGuard(this.sink, item.guard, keyPath(path, 'guard'));
      t.actions = readActions(this.sink, item.actions, keyPath(path, 'actions'));
      if (item.reenter !== undefined) {
        if (typeof item.reenter === 'boolean') t.reenter = item.reenter;
        else this.sink.error(keyPath(path, 'reenter'), 'reenter must be true or false');
      }
      t.description = readString(this.sink, item.description, keyPath(path, 'description'));
      t.meta = readMeta(this.sink, item.meta, keyPath(path, 'meta'));
    } else {
      this.sink.error(path, 'a transition must be a target string, an object or an array of them');
      return null;
    }
    this.transitions[t.id] = t;
    return t;
  }
}

export function readXState(config: unknown, options: ImportOptions = {}): ImportResult {
  const im = new Importer(options.ids ?? randomIds);
  const root = im.state(config as Json, '', null, '');
  if (root === null || !isObject(config)) return { definition: null, issues: im.sink.issues };
  const machineId = readString(im.sink, config.id, 'id');
  let context: JsonObject | null = null;
  if (config.context !== undefined) {
    if (isObject(config.context)) context = config.context;
    else im.sink.error('context', 'context must be an object');
  }
  const draft: MachineDefinition = {
    format: 1,
    machineId,
    name: options.name ?? machineId ?? 'machine',
    context,
    root,
    states: im.states,
    transitions: im.transitions,
  };
  resolveTargets(draft, im.pending, im.historyTargets, im.sink);
  if (im.sink.failed) return { definition: null, issues: im.sink.issues };
  return { definition: draft, issues: im.sink.issues };
}

/** Like `readXState` but throws `ImportError` when the config cannot be represented. */
export function importXState(config: unknown, options: ImportOptions = {}): MachineDefinition {
  const { definition, issues } = readXState(config, options);
  if (definition === null) throw new ImportError(issues);
  return definition;
}
