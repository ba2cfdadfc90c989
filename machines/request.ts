/**
 * The one way a machine writes a request state: invoke a `fromPromise` actor that answers
 * a `Result` (`{ ok: true, value }` or `{ ok: false, error }`), then take one of three
 * ways out. `refused` when the server said no (`ok: false`: a permission, a rule, bad
 * input), checked first with the machine's own `refused` guard; `done` when it said yes;
 * `crashed` when the actor threw (transport or an adapter bug: say `UNEXPECTED`).
 *
 * Each action named in `refused` or `done` is given the answer as its params; an action
 * written as `{ type, params }` is passed as it is (a fixed message, say). `crashed` has no
 * answer, so its actions take none. `first` holds guarded transitions checked before the
 * refusal (the room's "access gone"), `also` guarded ones checked after it, before `done`
 * (sign-up's "confirmation sent"). The result is built with the machine's own
 * `createStateConfig`, so it is that machine's state config and spreads into any state:
 *
 * ```ts
 * creating: {
 *   tags: ['busy'],
 *   ...request(invitesSetup, {
 *     src: 'createInvite',
 *     input: ({ context, event }) => ...,
 *     refused: { target: 'ready', actions: 'showRefusal' },
 *     done: { target: 'ready', actions: 'addInvite' },
 *     crashed: { target: 'ready', actions: 'showUnexpected' },
 *   }),
 * },
 * ```
 */

/** What `setup({...})` returns, as far as a request needs it. */
interface MachineSetup {
  createStateConfig: (config: never) => unknown;
}

/** The machine's state config: typed with its context, events, actors, actions and guards. */
type StateConfigOf<S extends MachineSetup> = Parameters<S['createStateConfig']>[0];
type InvokeOf<S extends MachineSetup> = Exclude<NonNullable<StateConfigOf<S>['invoke']>, readonly unknown[]>;
type ElementOf<T> = T extends readonly (infer E)[] ? E : T;
type ActionObjectOf<S extends MachineSetup> = Extract<
  ElementOf<NonNullable<StateConfigOf<S>['exit']>>,
  { type: string; params?: unknown }
>;
/** The machine's named actions. */
export type ActionNameOf<S extends MachineSetup> = ActionObjectOf<S>['type'];
/** A named action, or a named action with fixed params. */
type ActionOf<S extends MachineSetup> = ActionNameOf<S> | { type: ActionNameOf<S>; params: unknown };
/** A guarded transition on this request's answer (its done event, typed with the actor's output). */
type Guarded<S extends MachineSetup, TSrc> = Extract<
  ElementOf<NonNullable<Extract<InvokeOf<S>, { src: TSrc }>['onDone']>>,
  { guard?: unknown }
>;

export interface Outcome<S extends MachineSetup> {
  /** Where the answer leads; none stays put. */
  target?: string;
  actions?: ActionOf<S> | readonly ActionOf<S>[];
}

export interface RequestSpec<S extends MachineSetup, TSrc extends InvokeOf<S>['src']> {
  /** The actor, a `fromPromise` answering a `Result`; also the invoke's id unless `id` says otherwise. */
  src: TSrc;
  id?: string;
  input?: Extract<InvokeOf<S>, { src: TSrc }>['input'];
  first?: readonly Guarded<S, TSrc>[];
  refused: Outcome<S>;
  also?: readonly Guarded<S, TSrc>[];
  /** Success; left out, success stays put (the fact that follows moves the machine). */
  done?: Outcome<S>;
  crashed: Outcome<S>;
}

const answer = ({ event }: { event: { output: unknown } }) => event.output;

function withAnswer(actions: unknown) {
  const list = (actions === undefined ? [] : [actions].flat()) as (string | { type: string; params: unknown })[];
  return list.map((a) => (typeof a === 'string' ? { type: a, params: answer } : a));
}

function transition(outcome: { target?: string }, actions: readonly unknown[]) {
  return outcome.target === undefined ? { actions } : { target: outcome.target, actions };
}

/** A request state (its `invoke`) for the machine built with `machineSetup`; see the top of this file. */
export function request<S extends MachineSetup, const TSrc extends InvokeOf<S>['src']>(
  machineSetup: S,
  spec: RequestSpec<S, TSrc>,
): { invoke: InvokeOf<S> } {
  const onDone = [
    ...(spec.first ?? []),
    { guard: { type: 'refused', params: answer }, ...transition(spec.refused, withAnswer(spec.refused.actions)) },
    ...(spec.also ?? []),
    ...(spec.done ? [transition(spec.done, withAnswer(spec.done.actions))] : []),
  ];
  const crashed = spec.crashed.actions;
  const crashedActions: unknown[] = crashed === undefined ? [] : [crashed].flat();
  const invoke = {
    id: spec.id ?? spec.src,
    src: spec.src,
    ...(spec.input === undefined ? {} : { input: spec.input }),
    onDone,
    onError: transition(spec.crashed, crashedActions),
  };
  // The pieces are typed against this machine above; the assembled config is its own.
  return machineSetup.createStateConfig({ invoke } as never) as { invoke: InvokeOf<S> };
}
