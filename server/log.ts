/**
 * What the backend prints. Concise by default: problems (5xx answers, FATAL and PANIC
 * from PostgreSQL, service failures) and a summary when it stops. `--verbose` adds one
 * line per request and every PostgreSQL message, statements included.
 *
 * An ordinary edit conflict is an ERROR inside PostgreSQL (`commit_machine_ops` raises
 * `version_conflict`, the client rebases), as is every refused insert or bad filter: the
 * client gets the error and handles it, so the terminal only counts them.
 */

/** Levels PostgreSQL tags its log lines with; the last four continue the line before. */
const LEVEL = /\b(DEBUG\d?|LOG|INFO|NOTICE|WARNING|ERROR|FATAL|PANIC|STATEMENT|DETAIL|HINT|CONTEXT|QUERY|LOCATION):\s/;
const CONTINUATION = new Set(['STATEMENT', 'DETAIL', 'HINT', 'CONTEXT', 'QUERY', 'LOCATION']);

/** Messages every orderly stop produces (the backend's own Ctrl-C), not problems. */
const SHUTDOWN_NOISE = [
  'terminating connection due to administrator command',
  'the database system is shutting down',
  'role "postgres" does not exist',
];

/** A line that only says PostgreSQL is stopping (it may hear Ctrl-C before the backend does). */
export const isShutdownNoise = (line: string): boolean => SHUTDOWN_NOISE.some((n) => line.includes(n));

export interface PostgresLogFilter {
  /** The lines of one chunk of PostgreSQL's log that should be printed. */
  lines(chunk: string): string[];
  /** Client errors (and their statements) that were counted instead of printed. */
  readonly refused: number;
}

export function postgresLogFilter(verbose: boolean): PostgresLogFilter {
  let refused = 0;
  // Whether the current message (and so its continuation lines) is being printed.
  let printing = false;
  return {
    lines(chunk) {
      const out: string[] = [];
      for (const line of chunk.split('\n')) {
        if (line.trim() === '') continue;
        const level = LEVEL.exec(line)?.[1];
        if (level !== undefined && !CONTINUATION.has(level)) {
          if (level === 'ERROR') refused++;
          printing = verbose || ((level === 'FATAL' || level === 'PANIC') && !isShutdownNoise(line));
        }
        // Lines without a level continue a multi-line statement: they go with their message.
        if (printing) out.push(line);
      }
      return out;
    },
    get refused() {
      return refused;
    },
  };
}

/** Counts of what the gateway answered, for the summary printed at stop. */
export class RequestTally {
  total = 0;
  clientErrors = 0;
  serverErrors = 0;

  record(status: number): void {
    this.total++;
    if (status >= 500) this.serverErrors++;
    else if (status >= 400) this.clientErrors++;
  }

  summary(refusedStatements: number): string {
    const n = (count: number, one: string, many = `${one}s`): string =>
      `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
    const parts = [`${n(this.clientErrors, 'client error')} (4xx)`, `${n(this.serverErrors, 'server error')} (5xx)`];
    if (refusedStatements > 0)
      parts.push(`${n(refusedStatements, 'statement')} refused by PostgreSQL (conflicts, policies, bad input)`);
    return `served ${n(this.total, 'request')}: ${parts.join(', ')}; --verbose prints each one`;
  }
}
