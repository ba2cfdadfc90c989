import { transitionConfigPath } from './config-paths.ts';
import { keyPath } from './paths.ts';
import { reachableStates } from './reachability.ts';
import { configPathOf, displayName, subtree, transitionsBySource } from './tree.ts';
import type { Issue, MachineDefinition, StateId } from './types.ts';

/**
 * Rules about a representable machine, with config paths (as `exportXState` writes it):
 * state kinds agree with children, compound states name an initial child, parallel
 * states do not, final and history states are leaves without transitions, history sits
 * in a compound or parallel state, ids are unique, and every state can be reached
 * (a warning: drafts often have loose states).
 */
export function validateDefinition(def: MachineDefinition): Issue[] {
  const issues: Issue[] = [];
  const error = (path: string, message: string): void => void issues.push({ severity: 'error', path, message });
  const bySource = transitionsBySource(def);
  const ids = new Map<string, StateId>();
  if (def.machineId !== null) ids.set(def.machineId, def.root);

  for (const id of subtree(def, def.root)) {
    const n = def.states[id];
    if (!n) continue;
    const path = configPathOf(def, id);
    const name = `"${displayName(def, id)}"`;
    const outgoing = bySource.get(id) ?? [];

    if (n.xstateId !== null) {
      const other = ids.get(n.xstateId);
      if (other !== undefined) {
        const where = other === def.root ? 'the machine' : configPathOf(def, other);
        error(keyPath(path, 'id'), `duplicate id "${n.xstateId}" (also used by ${where})`);
      } else ids.set(n.xstateId, id);
    }

    switch (n.type) {
      case 'compound':
        if (n.children.length === 0) error(path || 'states', `compound state ${name} has no child states`);
        else if (n.initial === null)
          error(
            keyPath(path, 'initial'),
            `missing initial state: compound state ${name} must name one of its children in "initial"`,
          );
        break;
      case 'atomic':
        if (n.children.length > 0) error(keyPath(path, 'type'), `atomic state ${name} cannot have child states`);
        break;
      case 'parallel':
        if (n.initial !== null)
          error(
            keyPath(path, 'initial'),
            `parallel state ${name} cannot have an initial state (all its regions are entered together)`,
          );
        break;
      case 'final':
        if (n.children.length > 0) error(keyPath(path, 'states'), `final state ${name} cannot have child states`);
        for (const t of outgoing) error(transitionConfigPath(def, t), `final state ${name} cannot have transitions`);
        break;
      case 'history': {
        const parent = n.parent === null ? null : def.states[n.parent];
        if (!parent || (parent.type !== 'compound' && parent.type !== 'parallel')) {
          error(path || 'type', `history state ${name} must be inside a compound or parallel state`);
        }
        if (n.children.length > 0) error(keyPath(path, 'states'), `history state ${name} cannot have child states`);
        for (const t of outgoing) error(transitionConfigPath(def, t), `history state ${name} cannot have transitions`);
        break;
      }
    }
  }

  const reachable = reachableStates(def);
  const report = (id: StateId): void => {
    const n = def.states[id];
    if (!n) return;
    if (!reachable.has(id)) {
      issues.push({
        severity: 'warning',
        path: configPathOf(def, id),
        message: `state "${displayName(def, id)}" is unreachable: no initial state or transition leads to it`,
      });
      return; // its descendants are unreachable too; one warning is enough
    }
    // Below a compound state with no initial, "unreachable" only repeats that error.
    if (n.type === 'compound' && n.initial === null) return;
    for (const c of n.children) report(c);
  };
  report(def.root);
  return issues;
}
