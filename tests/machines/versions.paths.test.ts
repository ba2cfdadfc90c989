import type { SnapshotFrom } from 'xstate';
import { versionsMachine, type VersionsEvent } from '../../machines/open-machine/versions.machine.ts';
import type { VersionsFact } from '../../src/lib/ports/versions.ts';
import { describeMachinePaths, settleRequest, type MachinePaths } from './machine-paths.ts';
import { door, idleId, ok, refused, renamed, settle, start, version } from './versions.fakes.ts';

/**
 * Path tests for the versions machine: every state node reached, every shortest path and
 * every edge replayed on the running machine with the fake port (requests settled, facts
 * pushed, intents and the open machine's notice sent). At most two versions and one head,
 * so the graph is finite.
 */

type Snapshot = SnapshotFrom<typeof versionsMachine>;
type GraphEvent = VersionsEvent | { type: string; output?: unknown; error?: unknown };

const V1 = version('a', 'v1', 1);
const V2 = version('b', 'v2', 2);
const FACTS = new Set(['versions.added', 'versions.removed', 'versions.subscribed', 'versions.lost']);

const events: GraphEvent[] = [
  { type: 'xstate.done.actor.listVersions', output: ok([V1]) },
  { type: 'xstate.done.actor.listVersions', output: refused('network', "Couldn't list the versions.") },
  { type: 'xstate.error.actor.listVersions', error: new Error('listVersions crashed') },
  { type: 'xstate.done.actor.saveVersion', output: ok(V2) },
  { type: 'xstate.done.actor.saveVersion', output: refused('23505', 'Taken.') },
  { type: 'xstate.error.actor.saveVersion', error: new Error('saveVersion crashed') },
  { type: 'xstate.done.actor.readDefinitions', output: ok([door]) },
  { type: 'xstate.done.actor.readDefinitions', output: refused('network', "Couldn't read the version.") },
  { type: 'xstate.error.actor.readDefinitions', error: new Error('readDefinitions crashed') },
  { type: 'versions.headMoved', version: 2, definition: renamed },
  { type: 'versions.startNaming' },
  { type: 'versions.cancelNaming' },
  { type: 'versions.save', name: 'v2' },
  { type: 'versions.save', name: ' ' },
  { type: 'versions.open', id: 'a' },
  { type: 'versions.compare', id: 'a' },
  { type: 'versions.restore', id: 'a' },
  { type: 'versions.select', id: idleId },
  { type: 'versions.close' },
  { type: 'versions.retry' },
  { type: 'versions.dismissError' },
  { type: 'versions.added', version: V2 },
  { type: 'versions.removed' },
  { type: 'versions.subscribed' },
  { type: 'view.diff', before: door, after: renamed, label: 'Proposal' },
  { type: 'versions.paneSized', width: 800, height: 600 },
];

function key(snapshot: Snapshot): string {
  const { versions, head, wanted, view, selected, error } = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    versions: versions.map((v) => v.id),
    head,
    wanted: wanted?.kind ?? null,
    view: view ? `${view.kind}:${view.version ? view.version.id : view.label}` : null,
    selected,
    error,
  });
}

const traversal = {
  events: events as VersionsEvent[],
  filterEvents: (snapshot: Snapshot, event: VersionsEvent) => {
    if (!snapshot.can(event)) return false;
    const type = event.type as string;
    const { versions, error, view, head } = snapshot.context;
    const quiet = snapshot.matches({ list: 'live', naming: 'idle', view: 'closed' });
    // Live rows and the head are explored from a quiet panel only.
    if (type === 'versions.added' || type === 'versions.removed' || type === 'versions.subscribed')
      return quiet && error === null && versions.length < 2;
    if (type === 'versions.headMoved') return head === null && error === null;
    // Naming, and the view, one at a time.
    if (type.startsWith('versions.') && ['startNaming', 'save', 'cancelNaming'].some((t) => type.endsWith(t)))
      return view === null && versions.length < 2;
    if (['versions.open', 'versions.compare', 'versions.restore'].includes(type))
      return snapshot.matches({ naming: 'idle' }) && error === null;
    if (type === 'versions.select') return snapshot.context.selected === null;
    // A diff another part asks for, from a quiet panel; the canvas's pane, once, shown or not.
    if (type === 'view.diff')
      return view === null && snapshot.matches({ list: 'live', naming: 'idle' }) && error === null && head === null;
    if (type === 'versions.paneSized') return snapshot.context.pane === null;
    return true;
  },
  serializeState: key,
  serializeEvent: (event: VersionsEvent) => JSON.stringify(event),
  input: { machineId: 'm-1' },
};

async function replay(steps: readonly GraphEvent[]) {
  const fake = start();
  for (const event of steps) {
    if (await settleRequest(fake.held, event)) continue;
    if (FACTS.has(event.type)) fake.facts.next(event as VersionsFact);
    else fake.actor.send(event as VersionsEvent);
    await settle();
  }
  return { getSnapshot: () => fake.actor.getSnapshot(), stop: () => fake.actor.stop() };
}

const machine = versionsMachine as unknown as MachinePaths<Snapshot, VersionsEvent, { machineId: string }>['machine'];

describeMachinePaths('versions machine', {
  machine,
  traversal,
  replay,
  observe: key,
  minEdges: 40,
  timeout: 240_000,
});
