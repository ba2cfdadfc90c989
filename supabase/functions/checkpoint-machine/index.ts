// Moves a machine's checkpoint to the head of its op log (replaying and saving until the
// checkpoint is less than machine_checkpoint_interval() ops behind the head, when the
// database gives the checkpoint lease back): the only code that writes
// `machines.definition`. It replays the log with the project's own model
// (src/lib/model/resolve.ts, the function every client applies the log with) and saves
// the result as the service role through save_machine_checkpoint. Deploys unchanged to
// hosted Supabase (the CLI's bundler follows the relative import into src/lib/model);
// in the embedded backend it runs on Node through the Deno shim.
//
// Called after an append that took the lease (without the appender waiting), by a
// loader that found a long tail, and before pinning the stored definition (starting a
// simulation).
//
// POST { "machineId": "<uuid>" } with the caller's JWT (anyone who can read the machine:
// the replay is deterministic, so who asks changes nothing)
//   200 { version, head }    the checkpoint's seq and the log's head when it stopped
//   400 invalid_request      the body is not { machineId: uuid }
//   401 not_signed_in
//   404 machine_not_found    unknown, or not readable by the caller
import 'jsr:@supabase/functions-js/edge-runtime.d.ts';
import { createClient } from 'npm:@supabase/supabase-js@2';
import { corsHeaders } from 'npm:@supabase/supabase-js@2/cors';
import { replayResolved } from '../../../src/lib/model/resolve.ts';
import type { Op } from '../../../src/lib/model/op-types.ts';
import type { MachineDefinition } from '../../../src/lib/model/types.ts';

const PAGE = 1000;
/** Save rounds per call; appends keep coming in a busy room, the next lease holder goes on. */
const ROUNDS = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function failure(status: number, code: string, message: string): Response {
  return Response.json({ code, message }, { status, headers: corsHeaders });
}

Deno.serve(async (req: Request) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders });
  if (req.method !== 'POST') return failure(405, 'method_not_allowed', 'Use POST.');
  let machineId: unknown;
  try {
    machineId = ((await req.json()) as { machineId?: unknown }).machineId;
  } catch {
    return failure(400, 'invalid_request', 'The body must be JSON: { "machineId": "<uuid>" }.');
  }
  if (typeof machineId !== 'string' || !UUID.test(machineId))
    return failure(400, 'invalid_request', 'machineId must be a uuid.');

  const url = Deno.env.get('SUPABASE_URL') ?? '';
  const options = { auth: { persistSession: false, autoRefreshToken: false } };
  const asCaller = createClient(url, Deno.env.get('SUPABASE_ANON_KEY') ?? '', {
    ...options,
    global: { headers: { Authorization: req.headers.get('Authorization') ?? '' } },
  });
  const { data: who } = await asCaller.auth.getUser();
  if (!who.user) return failure(401, 'not_signed_in', 'Sign in to checkpoint a machine.');
  const visible = await asCaller.from('machines').select('id').eq('id', machineId).maybeSingle();
  if (visible.error || !visible.data)
    return failure(404, 'machine_not_found', 'The machine does not exist or you cannot read it.');

  const admin = createClient(url, Deno.env.get('SUPABASE_SERVICE_ROLE_KEY') ?? '', options);
  const machine = await admin.from('machines').select('definition, version').eq('id', machineId).single();
  if (machine.error) return failure(404, 'machine_not_found', 'The machine does not exist or you cannot read it.');
  let definition = machine.data.definition as MachineDefinition;
  let version = machine.data.version as number;
  // Replay to the head and save, again while appends made meanwhile (whose callers found
  // the lease taken) leave the checkpoint a whole interval behind; the database gives the
  // lease back once it is less than that (`released`).
  for (let round = 0; round < ROUNDS; round++) {
    for (;;) {
      const page = await admin
        .from('machine_ops')
        .select('seq, op')
        .eq('machine_id', machineId)
        .gt('seq', version)
        .order('seq')
        .limit(PAGE);
      if (page.error) {
        console.error('checkpoint-machine: reading the log failed', page.error);
        return failure(500, 'internal_error', 'The checkpoint could not be computed. Try again.');
      }
      const rows = page.data as { seq: number; op: Op }[];
      definition = replayResolved(
        definition,
        rows.map((r) => r.op),
      );
      version = rows[rows.length - 1]?.seq ?? version;
      if (rows.length < PAGE) break;
    }
    const saved = await admin.rpc('save_machine_checkpoint', {
      p_machine: machineId,
      p_seq: version,
      p_definition: definition,
    });
    if (saved.error) {
      console.error('checkpoint-machine: saving failed', saved.error);
      return failure(500, 'internal_error', 'The checkpoint could not be saved. Try again.');
    }
    const answer = saved.data as { saved: boolean; version: number; head: number; released: boolean };
    // Someone else's replay got further: start again from theirs.
    if (answer.version > version) {
      const again = await admin.from('machines').select('definition, version').eq('id', machineId).single();
      if (again.error) return failure(404, 'machine_not_found', 'The machine does not exist or you cannot read it.');
      definition = again.data.definition as MachineDefinition;
      version = again.data.version as number;
    }
    if (answer.released) return Response.json({ version: answer.version, head: answer.head }, { headers: corsHeaders });
  }
  return Response.json({ version, head: null }, { headers: corsHeaders });
});
