import { describe, expect, it } from 'vitest';
import { isShutdownNoise, postgresLogFilter, RequestTally } from '../../server/log.ts';

/**
 * `npm start` once printed a line per request, a PostgreSQL error block
 * with the full SQL for every ordinary edit conflict, and connection errors at Ctrl-C.
 * Concise logs print problems and a summary; --verbose prints everything.
 */

// What PostgreSQL writes when commit_machine_ops refuses a stale batch (one chunk, SQL over several lines).
const CONFLICT = [
  '2026-11-24 09:19:22.235 UTC [5101] ERROR:  version_conflict',
  '2026-11-24 09:19:22.235 UTC [5101] DETAIL:  the machine is at version 12',
  '2026-11-24 09:19:22.235 UTC [5101] CONTEXT:  PL/pgSQL function commit_machine_ops(uuid,uuid,text,integer,jsonb) line 30 at RAISE',
  '2026-11-24 09:19:22.235 UTC [5101] STATEMENT:  select * from public.commit_machine_ops(',
  '\t  p_machine_id => $1,',
  '\t  p_ops => $5)',
].join('\n');

const SHUTDOWN = [
  '2026-11-24 09:19:22.235 UTC [5101] LOG:  aborting any active transactions',
  '2026-11-24 09:19:22.239 UTC [5134] FATAL:  terminating connection due to administrator command',
  '2026-11-24 09:19:22.244 UTC [13886] FATAL:  the database system is shutting down',
].join('\n');

const REAL = '2026-11-24 09:19:23.000 UTC [5102] FATAL:  could not open file "base/5/1259": No such file or directory';

describe('backend logs', () => {
  it('concise: counts client errors (statement included) instead of printing them, and keeps real failures', () => {
    const filter = postgresLogFilter(false);
    expect(filter.lines(CONFLICT)).toEqual([]);
    expect(filter.lines(SHUTDOWN)).toEqual([]);
    expect(filter.lines(REAL)).toEqual([REAL]);
    expect(filter.refused).toBe(1);
    // Services that lose their connection because PostgreSQL heard Ctrl-C first say so in these words.
    expect(
      isShutdownNoise(
        '[realtime] broadcast listener lost its connection: terminating connection due to administrator command',
      ),
    ).toBe(true);
    expect(isShutdownNoise(REAL)).toBe(false);
  });

  it("verbose: prints every line, the statement's continuation lines with it", () => {
    const filter = postgresLogFilter(true);
    expect(filter.lines(CONFLICT)).toEqual(CONFLICT.split('\n'));
    expect(filter.lines(SHUTDOWN)).toHaveLength(3);
  });

  it('a message split over chunks keeps its continuation lines with it', () => {
    const filter = postgresLogFilter(false);
    const [first, ...rest] = CONFLICT.split('\n');
    expect(filter.lines(first ?? '')).toEqual([]);
    expect(filter.lines(rest.join('\n'))).toEqual([]);
    expect(filter.lines(REAL)).toEqual([REAL]);
  });

  it('summarises what was served in one line', () => {
    const tally = new RequestTally();
    for (const status of [200, 201, 204, 409, 401, 500]) tally.record(status);
    for (let i = 0; i < 1000; i++) tally.record(200);
    expect(tally.summary(3)).toBe(
      'served 1,006 requests: 2 client errors (4xx), 1 server error (5xx), 3 statements refused by PostgreSQL (conflicts, policies, bad input); --verbose prints each one',
    );
    expect(new RequestTally().summary(0)).toBe(
      'served 0 requests: 0 client errors (4xx), 0 server errors (5xx); --verbose prints each one',
    );
  });
});
