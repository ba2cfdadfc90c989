import fs from 'node:fs';
import path from 'node:path';
import type { CDPSession, Page } from 'playwright-core';

/**
 * Where a peer's big chart spends its time, for `BENCH_BIGCHART_PROFILE=1`:
 * a page-side record of what arrives and when (op broadcasts, log reads, layout requests
 * and answers, long tasks), and a sampled CPU profile of the page's main thread whose
 * self time is summed per function of the app's sources (through the build's source maps).
 * Figures for reading, never pass/fail.
 */

/** Installed before the app loads: wraps the socket, fetch and the layout worker to note what happens when. */
export const PROBE_SCRIPT = `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const events = [];
  window.__probe = events;
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (msg, ...rest) {
    if (msg && msg.request && msg.request.definition)
      events.push({ t: now(), what: 'layout asked', n: Object.keys(msg.request.definition.states).length });
    return post.call(this, msg, ...rest);
  };
  const add = Worker.prototype.addEventListener;
  Worker.prototype.addEventListener = function (type, fn, options) {
    if (type !== 'message') return add.call(this, type, fn, options);
    return add.call(this, type, function (e) {
      if (e.data && e.data.result) {
        const nodes = e.data.result.layout ? Object.keys(e.data.result.layout.nodes).length : 0;
        events.push({ t: now(), what: 'layout answered', n: nodes });
      }
      return fn.call(this, e);
    }, options);
  };
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (typeof e.data === 'string' && e.data.includes('machine-ops'))
          events.push({ t: now(), what: 'ops broadcast', n: e.data.length });
      });
    }
  };
  const get = window.fetch;
  window.fetch = function (input, init) {
    const url = String(input && input.url ? input.url : input);
    const start = now();
    const done = (r) => { if (url.includes('machine_ops')) events.push({ t: start, what: 'log read', n: Math.round(now() - start) }); return r; };
    return get.call(this, input, init).then(done);
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) events.push({ t: performance.timeOrigin + e.startTime, what: 'long task', n: Math.round(e.duration) });
  }).observe({ type: 'longtask', buffered: true });
})()`;

export interface ProbeEvent {
  t: number;
  what: string;
  n: number;
}

export async function startProfile(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
  await cdp.send('Profiler.start');
  return cdp;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

/** A source map's mappings, decoded to (generated line -> sorted [column, source, line, name]) rows. */
function decodeMap(map: { sources: string[]; names: string[]; mappings: string }) {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const lines: [number, number, number, number][][] = [];
  let src = 0;
  let srcLine = 0;
  let name = 0;
  for (const line of map.mappings.split(';')) {
    const row: [number, number, number, number][] = [];
    let col = 0;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const digit = chars.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >> 1) : value >> 1);
          value = 0;
          shift = 0;
        }
      }
      col += values[0] ?? 0;
      if (values.length >= 4) {
        src += values[1] ?? 0;
        srcLine += values[2] ?? 0;
        if (values.length >= 5) name += values[4] ?? 0;
        row.push([col, src, srcLine, values.length >= 5 ? name : -1]);
      }
    }
    lines.push(row);
  }
  return lines;
}

/** Stops the profile and prints the functions with the most self time, named by source file and line. */
export async function reportProfile(cdp: CDPSession, buildDir: string, top = 25): Promise<void> {
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  const maps = new Map<string, { sources: string[]; names: string[]; rows: ReturnType<typeof decodeMap> } | null>();
  const mapFor = (url: string) => {
    const file = url.split('/').pop() ?? '';
    if (!maps.has(file)) {
      const at = path.join(buildDir, 'assets', `${file}.map`);
      if (!file || !fs.existsSync(at)) maps.set(file, null);
      else {
        const raw = JSON.parse(fs.readFileSync(at, 'utf8')) as { sources: string[]; names: string[]; mappings: string };
        maps.set(file, { sources: raw.sources, names: raw.names, rows: decodeMap(raw) });
      }
    }
    return maps.get(file) ?? null;
  };
  const nameOf = (node: ProfileNode): string => {
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    if (!url) return functionName || '(native)';
    const map = mapFor(url);
    const row = map?.rows[lineNumber];
    if (!map || !row) return `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    let hit = row[0];
    for (const seg of row) if (seg[0] <= columnNumber) hit = seg;
    if (!hit) return functionName;
    const source = (map.sources[hit[1]] ?? '?').replace(/^(\.\.\/)+/, '');
    return `${functionName || '(anonymous)'} ${source}:${hit[2] + 1}`;
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node) return;
    total += dt;
    const key = nameOf(node);
    self.set(key, (self.get(key) ?? 0) + dt);
    const file = key.includes(' ') ? (key.split(' ').pop() ?? '').replace(/:\d+$/, '') : key;
    const group = file.startsWith('node_modules/') ? file.split('/').slice(0, 2).join('/') : file;
    byFile.set(group, (byFile.get(group) ?? 0) + dt);
  });
  console.log(`  CPU profile of the main thread: ${total.toFixed(0)} ms sampled`);
  console.log('  self time by file (or package):');
  for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${v.toFixed(0).padStart(7)} ms  ${k}`);
  console.log('  self time by function:');
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${v.toFixed(0).padStart(7)} ms  ${k}`);
  // Who called the app's three costliest functions: the commonest chains of callers, by self time under them.
  const parent = new Map<number, number>();
  for (const n of profile.nodes as (ProfileNode & { children?: number[] })[])
    for (const c of n.children ?? []) parent.set(c, n.id);
  const costly = [...self]
    .filter(([k]) => k.includes(' src/') || k.includes(' machines/'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k]) => k);
  for (const fn of costly) {
    const chains = new Map<string, number>();
    profile.samples.forEach((id, i) => {
      const node = byId.get(id);
      if (!node || nameOf(node) !== fn) return;
      const chain: string[] = [];
      for (let p = parent.get(id); p !== undefined && chain.length < 6; p = parent.get(p)) {
        const pn = byId.get(p);
        if (pn) chain.push(nameOf(pn).replace(/^\S+ /, ''));
      }
      const key = chain.join(' < ');
      chains.set(key, (chains.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    console.log(`  called from, for ${fn}:`);
    for (const [k, v] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 3))
      console.log(`    ${v.toFixed(0).padStart(7)} ms  < ${k}`);
  }
  await cdp.detach();
}

/** Prints the page's record, times from `t0` (A's click on Apply). */
export async function reportProbe(page: Page, who: string, t0: number): Promise<void> {
  const events = await page.evaluate(() => {
    const all = (window as unknown as { __probe?: ProbeEvent[] }).__probe ?? [];
    return all.splice(0, all.length);
  });
  console.log(`  what ${who} saw (ms after A's click):`);
  const shown = events.filter((e) => e.t >= t0 - 50).sort((a, b) => a.t - b.t);
  let longSum = 0;
  for (const e of shown) {
    if (e.what === 'long task') longSum += e.n;
    if (e.what === 'long task' && e.n < 100) continue;
    console.log(`    ${(e.t - t0).toFixed(0).padStart(7)}  ${e.what} ${e.n}`);
  }
  console.log(`    long tasks in all: ${longSum} ms`);
}
