import os from 'node:os';
import { createCommentsAdapter } from '../../src/adapters/supabase/comments.ts';
import type { CommentsStreamEvent } from '../../src/lib/ports/comments.ts';
import { benchBackend } from '../backend.ts';
import { benchPerson } from '../people.ts';
import { ms, summarize, within, type BenchContext } from '../lib.ts';

/**
 * A reply reaching the other client (aim p95 under 100 ms on a quiet machine): Node
 * clients with supabase-js on the embedded backend. Ada follows the machine's comments
 * (the adapter's private `comments:<machine>` channel); repliers take turns replying to
 * one thread (three of them, so no one meets the limit of 30 comments a minute); the
 * time runs from the reply's request leaving to Ada's stream holding it. The machine's
 * load average is printed beside the figures.
 */

const SAMPLES = 50;
const WARMUP = 5;

const person = (url: string, anonKey: string, tag: string) => benchPerson(url, anonKey, `comments-${tag}`);

export async function run(ctx: BenchContext): Promise<void> {
  const backend = await benchBackend();
  try {
    const ada = await person(backend.url, backend.anonKey, 'ada');
    const repliers = await Promise.all(['bo', 'cy', 'di'].map((t) => person(backend.url, backend.anonKey, t)));
    const project = await ada.client.from('projects').insert({ name: 'Bench comments' }).select('id').single();
    if (project.error) throw project.error;
    const added = await ada.client
      .from('project_members')
      .insert(
        repliers.map((r) => ({ project_id: project.data.id, user_id: r.id, role: 'viewer', joined_via: 'added' })),
      );
    if (added.error) throw added.error;
    const machine = await ada.client
      .from('machines')
      .insert({ project_id: project.data.id, name: 'bench' })
      .select('id')
      .single();
    if (machine.error) throw machine.error;
    const machineId = machine.data.id;

    const port = createCommentsAdapter(ada.client);
    const started = await port.startThread({
      machineId,
      anchor: { kind: 'state', value: 's_root' },
      body: 'Why?',
      mentions: [],
    });
    if (!started.ok) throw new Error(started.error.message);
    const threadId = started.value.thread.id;

    // Each reply's body -> who waits for it at Ada's; the stream resolves it the moment it arrives.
    const waiting = new Map<string, (at: number) => void>();
    let joinedNow: () => void = () => undefined;
    const joined = new Promise<void>((r) => (joinedNow = r));
    const sub = port.changes$(machineId).subscribe((e: CommentsStreamEvent) => {
      if (e.type === 'comments.subscribed') joinedNow();
      if (e.type === 'comments.commentChanged') waiting.get(e.comment.body)?.(performance.now());
    });
    await within(10_000, 'the comments channel', joined);

    const ports = repliers.map((r) => createCommentsAdapter(r.client));
    const times: number[] = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const body = `reply ${i}`;
      const seen = new Promise<number>((r) => waiting.set(body, r));
      const t0 = performance.now();
      const done = await (ports[i % ports.length] as (typeof ports)[number]).reply({
        machineId,
        threadId,
        body,
        mentions: [],
      });
      if (!done.ok) throw new Error(done.error.message);
      const t1 = await within(10_000, `reply ${i} at Ada's`, seen);
      if (i >= WARMUP) times.push(t1 - t0);
    }
    sub.unsubscribe();

    const s = summarize(times);
    ctx.section('comments: a reply -> the other client (Node supabase-js clients, embedded backend)');
    ctx.report(`a reply's request leaves -> Ada's stream has it, p50 (n = ${s.n})`, ms(s.p50));
    ctx.report('  p95', ms(s.p95), 'under 100 ms');
    ctx.report('  p99', ms(s.p99));
    ctx.report('load average (1 min) during the run', os.loadavg()[0]?.toFixed(2) ?? '?');
  } finally {
    await backend.cleanup();
  }
}
