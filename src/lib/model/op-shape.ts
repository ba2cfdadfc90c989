import type { ActionRef, GuardRef, Invocation, Json, StateNode, StateType, Transition } from './types.ts';
import { delayOf } from './import-parts.ts';

/**
 * Shape checks for op payloads. Ops arrive from other clients and from the stored log,
 * so `applyOp` checks them rather than trusting the type: a malformed op must be refused
 * (OpError "invalid"), never stored into a definition.
 */

export const STATE_TYPES: readonly StateType[] = ['atomic', 'compound', 'parallel', 'final', 'history'];

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

export function isJson(v: unknown, depth = 0): v is Json {
  if (depth > 200) return false;
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) return v.every((x) => isJson(x, depth + 1));
  if (isPlainObject(v)) return Object.values(v).every((x) => isJson(x, depth + 1));
  return false;
}

function onlyKeys(v: Record<string, unknown>, required: readonly string[], optional: readonly string[] = []): boolean {
  for (const k of required) if (!(k in v)) return false;
  return Object.keys(v).every((k) => (required.includes(k) || optional.includes(k)) && v[k] !== undefined);
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isName = (v: unknown): v is string => typeof v === 'string' && v !== '';
export const isNullable = <T>(v: unknown, check: (x: unknown) => x is T): v is T | null => v === null || check(v);

/** A state key XState can target: not empty, no '.', not starting with '#'. */
export function isValidKey(v: unknown): v is string {
  return typeof v === 'string' && v !== '' && !v.includes('.') && !v.startsWith('#');
}

export function isRef(v: unknown): v is ActionRef & GuardRef {
  return (
    isPlainObject(v) &&
    onlyKeys(v, ['type'], ['params']) &&
    isName(v.type) &&
    (v.params === undefined || isJson(v.params))
  );
}

export const isRefList = (v: unknown): v is ActionRef[] => Array.isArray(v) && v.every(isRef);
export const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
export const isMeta = (v: unknown): v is Record<string, Json> => isPlainObject(v) && isJson(v);

export function isInvocation(v: unknown): v is Invocation {
  return (
    isPlainObject(v) &&
    onlyKeys(v, ['uid', 'src'], ['id', 'systemId', 'input']) &&
    isName(v.uid) &&
    isName(v.src) &&
    (v.id === undefined || isString(v.id)) &&
    (v.systemId === undefined || isString(v.systemId)) &&
    (v.input === undefined || isJson(v.input))
  );
}

export function isInvocationList(v: unknown): v is Invocation[] {
  if (!Array.isArray(v) || !v.every(isInvocation)) return false;
  return new Set(v.map((i) => i.uid)).size === v.length;
}

/** A delay that survives export/import unchanged (a numeric-looking name would not). */
export function isDelay(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 && !Object.is(v, -0) && delayOf(String(v)) === v;
  return typeof v === 'string' && v !== '' && delayOf(v) === v;
}

export function isEventShape(v: unknown): v is Transition['event'] {
  if (typeof v === 'string') return v !== '';
  if (!isPlainObject(v)) return false;
  if ('always' in v) return onlyKeys(v, ['always']) && v.always === true;
  if ('after' in v) return onlyKeys(v, ['after']) && isDelay(v.after);
  if ('done' in v) return onlyKeys(v, ['done']) && v.done === true;
  return (
    onlyKeys(v, ['invoke', 'outcome']) &&
    isName(v.invoke) &&
    (v.outcome === 'done' || v.outcome === 'error' || v.outcome === 'snapshot')
  );
}

export const isOutput = (v: unknown): v is { value: Json } =>
  isPlainObject(v) && onlyKeys(v, ['value']) && isJson(v.value);
export const isHistoryKind = (v: unknown): v is 'shallow' | 'deep' => v === 'shallow' || v === 'deep';
export const isStateType = (v: unknown): v is StateType =>
  typeof v === 'string' && (STATE_TYPES as readonly string[]).includes(v);
/** -0 is refused: it would not survive JSON (it prints as 0) and so would not round-trip. */
export const isOrder = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0);
export const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

const STATE_FIELDS = [
  'id',
  'key',
  'parent',
  'type',
  'initial',
  'children',
  'history',
  'historyTarget',
  'entry',
  'exit',
  'invoke',
  'tags',
  'description',
  'meta',
  'xstateId',
  'output',
] as const;

export function isStateNodeShape(v: unknown): v is StateNode {
  return (
    isPlainObject(v) &&
    onlyKeys(v, STATE_FIELDS) &&
    isName(v.id) &&
    isValidKey(v.key) &&
    isName(v.parent) &&
    isStateType(v.type) &&
    isNullable(v.initial, isName) &&
    isStringList(v.children) &&
    isNullable(v.history, isHistoryKind) &&
    isNullable(v.historyTarget, isName) &&
    isRefList(v.entry) &&
    isRefList(v.exit) &&
    isInvocationList(v.invoke) &&
    isStringList(v.tags) &&
    isNullable(v.description, isString) &&
    isNullable(v.meta, isMeta) &&
    isNullable(v.xstateId, isName) &&
    isNullable(v.output, isOutput)
  );
}

const TRANSITION_FIELDS = [
  'id',
  'source',
  'event',
  'guard',
  'actions',
  'targets',
  'reenter',
  'description',
  'meta',
  'order',
] as const;

export function isTransitionShape(v: unknown): v is Transition {
  return (
    isPlainObject(v) &&
    onlyKeys(v, TRANSITION_FIELDS) &&
    isName(v.id) &&
    isName(v.source) &&
    isEventShape(v.event) &&
    isNullable(v.guard, isRef) &&
    isRefList(v.actions) &&
    isStringList(v.targets) &&
    new Set(v.targets).size === v.targets.length &&
    typeof v.reenter === 'boolean' &&
    isNullable(v.description, isString) &&
    isNullable(v.meta, isMeta) &&
    isOrder(v.order)
  );
}
