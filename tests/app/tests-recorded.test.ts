import { NEVER, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { testsLogic } from '../../src/app/tests.ts';
import type { MachineTestsPort } from '../../src/lib/ports/machine-tests.ts';
import type {
  SimListStreamEvent,
  SimResult,
  SimulationPort,
  SimulationRecord,
} from '../../src/lib/ports/simulation.ts';
import type { SimLogEntry } from '../../src/lib/simulation/index.ts';
import { computeCoverage, coverageSources } from '../../src/lib/testing/index.ts';
import { simulation } from '../machines/simulation.fakes.ts';
import { MACHINE, toggle } from '../machines/tests.fakes.ts';

/**
 * A simulation recorded while the Tests panel is open counts for coverage at
 * once, through the machine's simulations stream (each event sent moves its last_seq),
 * not only when the test list is next read.
 */

const entry = (seq: number, type: string): SimLogEntry => ({
  seq,
  kind: 'event',
  type,
  payload: {},
  guards: {},
  sender: 'u-ada',
});

/** A simulation of the tests' toggle, `lastSeq` events long. */
const record = (id: string, lastSeq: number): SimulationRecord =>
  simulation(id, { machineId: MACHINE, machineVersion: 1, definition: toggle, lastSeq });

/** A simulations port over an in-memory log per simulation; the list stream is pushed by the test. */
function fakeSimulations(logs: Map<string, SimLogEntry[]>) {
  const list = new Subject<SimListStreamEvent>();
  const reads: [string, number][] = [];
  const unused = () => Promise.reject(new Error('not used here'));
  const port: SimulationPort = {
    list: (): Promise<SimResult<SimulationRecord[]>> =>
      Promise.resolve({ ok: true, value: [...logs].map(([id, l]) => record(id, l.length)) }),
    eventsSince: (id, seq) => {
      reads.push([id, seq]);
      return Promise.resolve({ ok: true, value: (logs.get(id) ?? []).filter((e) => e.seq > seq) });
    },
    simulations$: () => list.asObservable(),
    events$: () => NEVER,
    start: unused,
    send: unused,
    fork: unused,
  };
  return { port, list, reads };
}

const testsPort: MachineTestsPort = {
  list: () => Promise.resolve({ ok: true, value: { tests: [], runs: [] } }),
  changes$: () => NEVER,
  save: () => Promise.reject(new Error('not used here')),
  recordRun: () => Promise.reject(new Error('not used here')),
} as unknown as MachineTestsPort;

describe('simulations recorded while the Tests panel is open', () => {
  it('count for coverage as they are recorded, each read on from where the last read stopped', async () => {
    const logs = new Map<string, SimLogEntry[]>([['s-old', [entry(1, 'GO')]]]);
    const sims = fakeSimulations(logs);
    const logic = testsLogic(testsPort, () => Promise.resolve({ paths: [], error: null }), sims.port);
    const actor = createActor(logic, { input: { machineId: MACHINE } }).start();
    await waitFor(actor, (s) => s.matches({ list: 'live' }));
    expect(actor.getSnapshot().context.simulations?.map((s) => s.id)).toEqual(['s-old']);

    // Someone starts a simulation and sends GO then BACK while the panel is open.
    logs.set('s-new', [entry(1, 'GO')]);
    sims.list.next({ type: 'sims.started', simulation: record('s-new', 0) });
    sims.list.next({ type: 'sims.updated', simulation: record('s-new', 1) });
    await waitFor(actor, (s) => (s.context.simulations ?? []).some((x) => x.id === 's-new'));
    logs.get('s-new')?.push(entry(2, 'BACK'));
    sims.list.next({ type: 'sims.updated', simulation: record('s-new', 2) });
    const snap = await waitFor(
      actor,
      (s) => s.context.simulations?.find((x) => x.id === 's-new')?.entries.length === 2,
    );

    const sources = coverageSources([], snap.context.simulations);
    expect(sources.simulations).toBe(2);
    expect(snap.context.simulations?.find((x) => x.id === 's-new')?.entries.map((e) => e.type)).toEqual(['GO', 'BACK']);
    const coverage = computeCoverage(toggle, sources.runs);
    expect(coverage.transitions.covered.size).toBe(2);
    // The second read asked only for what came after the first (and a started row with no events read nothing).
    expect(sims.reads.filter(([id]) => id === 's-new')).toEqual([
      ['s-new', 0],
      ['s-new', 1],
    ]);
    actor.stop();
  });

  it('a list read that lands after a recorded step keeps the longer log', async () => {
    const logs = new Map<string, SimLogEntry[]>([['s-1', [entry(1, 'GO')]]]);
    const sims = fakeSimulations(logs);
    const logic = testsLogic(testsPort, () => Promise.resolve({ paths: [], error: null }), sims.port);
    const actor = createActor(logic, { input: { machineId: MACHINE } }).start();
    await waitFor(actor, (s) => s.matches({ list: 'live' }));
    logs.get('s-1')?.push(entry(2, 'BACK'));
    sims.list.next({ type: 'sims.updated', simulation: record('s-1', 2) });
    await waitFor(actor, (s) => s.context.simulations?.[0]?.entries.length === 2);
    // The stream resubscribed: the list is read again, and a stale read must not shorten the log.
    logs.set('s-1', [entry(1, 'GO')]);
    actor.send({ type: 'tests.subscribed' });
    const snap = await waitFor(actor, (s) => s.matches({ list: 'live' }));
    expect(snap.context.simulations?.[0]?.entries.length).toBe(2);
    actor.stop();
  });
});
