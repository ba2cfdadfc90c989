import os from 'node:os';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { Database, Json } from '../../src/adapters/supabase/database.types.ts';
import { createProposalsAdapter } from '../../src/adapters/supabase/proposals.ts';
import { createTimelineAdapter } from '../../src/adapters/supabase/timeline.ts';
import { addChildOps, deleteOps, renameOps, setEventOps } from '../../src/lib/canvas-ops/index.ts';
import { generateChart } from '../../src/lib/layout/generate.ts';
import { applyOps, exportXState, type MachineDefinition, type Op } from '../../src/lib/model/index.ts';
import { replayResolved } from '../../src/lib/model/resolve.ts';
import { definitionAtSeq } from '../../src/lib/timeline/history.ts';
import { benchBackend } from '../backend.ts';
import { benchPerson } from '../people.ts';
import { ms, summarize, type BenchContext } from '../lib.ts';

/**
 * A proposal's merge (aim under 1 s): a 300-state chart; Ada forks it and makes 200 ops
 * in her draft (renames, new states, events renamed) while Bo makes 200 ops on the
 * machine itself (renames, new states, deletions, some of states Ada renamed). Bo then
 * merges through the proposals adapter as the Merge button does: both logs read and
 * folded, the net change computed, merge_proposal appending it at the head, and the batch
 * read back to list what no longer applied. The figure is that whole call. The merged
 * machine is checked against both edit streams replayed op by op in server order (the
 * machine's 200 ops, then the draft's 200): equal, or the bench says not. Node clients
 * with supabase-js on the embedded backend; the load average is printed beside it.
 */

const RUNS = 5;
const OPS = 200;
type Client = SupabaseClient<Database>;

const person = (url: string, anonKey: string, tag: string) => benchPerson(url, anonKey, `proposals-${tag}`);

/** `count` ops on `def`, made one edit at a time the way the canvas makes them; `kinds` picks each edit. */
function edits(def: MachineDefinition, count: number, tag: string, deletes: boolean): Op[] {
  const all: Op[] = [];
  let current = def;
  for (let i = 0; all.length < count; i++) {
    const leaves = Object.values(current.states).filter((s) => s.parent !== null && s.children.length === 0);
    const s = leaves[(i * (deletes ? 37 : 41)) % leaves.length]!;
    const transitions = Object.values(current.transitions);
    const t = transitions[(i * 53) % transitions.length];
    const kind = i % (deletes ? 4 : 3);
    const batch =
      kind === 0
        ? renameOps(current, s.id, `${s.key}_${tag}${i}`)
        : kind === 1
          ? addChildOps(current, s.parent!, `${tag}_new_${i}`, `${tag}_added_${i}`)
          : kind === 2 && t
            ? setEventOps(current, t.id, `${tag.toUpperCase()}_${i}`)
            : deleteOps(current, [s.id]);
    const room = count - all.length;
    const taken = batch.length <= room ? batch : [];
    if (taken.length === 0 && batch.length > room) break;
    current = applyOps(current, taken);
    all.push(...taken);
  }
  return all;
}

async function commitAll(client: Client, machine: string, ops: Op[]): Promise<void> {
  for (let i = 0; i < ops.length; i += 20) {
    const r = await client.rpc('commit_machine_ops', {
      p_machine: machine,
      p_client_id: 'bench',
      p_batch_id: crypto.randomUUID(),
      p_ops: ops.slice(i, i + 20) as unknown as Json,
    });
    if (r.error) throw new Error(r.error.message);
  }
}

const same = (a: MachineDefinition, b: MachineDefinition) =>
  JSON.stringify(exportXState(a)) === JSON.stringify(exportXState(b));

export async function run(ctx: BenchContext): Promise<void> {
  const backend = await benchBackend();
  try {
    const ada = await person(backend.url, backend.anonKey, 'ada');
    const bo = await person(backend.url, backend.anonKey, 'bo');
    const project = await ada.client.from('projects').insert({ name: 'Bench proposals' }).select('id').single();
    if (project.error) throw project.error;
    const added = await ada.client
      .from('project_members')
      .insert({ project_id: project.data.id, user_id: bo.id, role: 'editor', joined_via: 'added' });
    if (added.error) throw added.error;
    const chart = generateChart(300);
    const adaPort = createProposalsAdapter(ada.client);
    const boPort = createProposalsAdapter(bo.client);
    const timeline = createTimelineAdapter(bo.client);
    const samples: number[] = [];
    let netOps = 0;
    let notApplied = 0;
    let equal = 0;
    for (let run = 0; run < RUNS; run++) {
      const machine = await ada.client
        .from('machines')
        .insert({ project_id: project.data.id, name: `bench ${run}`, definition: chart as unknown as Json })
        .select('id')
        .single();
      if (machine.error) throw machine.error;
      const machineId = machine.data.id;
      const proposed = await adaPort.propose({ machineId, title: `run ${run}`, definition: chart, baseSeq: 1 });
      if (!proposed.ok) throw new Error(proposed.error.message);
      const proposal = proposed.value;
      const draftOps = edits(chart, OPS, 'ada', false);
      const targetOps = edits(chart, OPS, 'bo', true);
      await commitAll(ada.client, proposal.draftId, draftOps);
      await commitAll(bo.client, machineId, targetOps);
      const asked = await adaPort.requestReview(proposal.id);
      if (!asked.ok) throw new Error(asked.error.message);
      const approved = await boPort.review(proposal.id, 'approved');
      if (!approved.ok) throw new Error(approved.error.message);

      const t0 = performance.now();
      const merged = await boPort.merge(approved.value);
      samples.push(performance.now() - t0);
      if (!merged.ok) throw new Error(merged.error.message);
      netOps = (merged.value.proposal.mergedLastSeq ?? 0) - (merged.value.proposal.mergedFirstSeq ?? 1) + 1;
      notApplied = merged.value.notApplied.length;

      const log = await timeline.opsSince(machineId, 0);
      if (!log.ok) throw new Error(log.error.message);
      const now = definitionAtSeq(log.value, log.value[log.value.length - 1]!.seq)!;
      if (same(now, replayResolved(chart, [...targetOps, ...draftOps]))) equal++;
    }
    const s = summarize(samples);
    const [load1] = os.loadavg();
    ctx.section(
      `proposals merge: ${OPS}-op draft into a ${Object.keys(chart.states).length}-state machine that moved ${OPS} ops meanwhile (${os.cpus().length} cores, load ${load1!.toFixed(1)}, ${RUNS} runs)`,
    );
    ctx.report(
      `merge (read + fold both logs, ${netOps} net ops, append, read back): p50 / max`,
      `${ms(s.p50)} / ${ms(s.max)}`,
      '< 1 s',
    );
    ctx.report('ops that no longer applied, listed', String(notApplied));
    ctx.report('merged = both replayed op by op in server order', `${equal} of ${RUNS} runs`);
  } finally {
    await backend.cleanup();
  }
}
