import type { Failure, Result } from '../../lib/ports/room.ts';

/**
 * Failures of table and function calls in words for people. By Postgres/PostgREST code,
 * never by message, except for the server's own sentences on purpose-written checks
 * (the owner-keeping trigger), which are already meant to be read.
 */
interface ErrorLike {
  code?: string;
  message?: string;
  hint?: string | null;
  details?: string | null;
}

const OFFLINE = "Can't reach the server. Check your connection and try again.";

export function describeDataError(error: unknown, action: string): Failure {
  if (
    error instanceof TypeError ||
    (error instanceof Error && /fetch|network/i.test(error.message) && !('code' in error))
  ) {
    return { code: 'network', message: OFFLINE };
  }
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorLike;
  switch (e.code) {
    case '42501':
      return { code: 'forbidden', message: `You don't have permission to ${action}.` };
    case '23514':
      if (/keep its owner/.test(e.message ?? '')) {
        return {
          code: 'owner_required',
          message: 'A project must keep its owner. Transfer the project to another owner first.',
        };
      }
      return { code: 'invalid', message: `That value isn't allowed (${e.message ?? 'check failed'}).` };
    case 'PGRST116':
      return { code: 'not_found', message: `Couldn't ${action}: it no longer exists or you no longer have access.` };
    case '23505':
      return { code: 'conflict', message: `Couldn't ${action}: it already exists.` };
    default:
      if (e.code && /^5|^PGRST0/.test(e.code))
        return { code: 'server', message: `The server couldn't ${action}. Try again.` };
      return {
        code: e.code ?? 'unknown',
        message: `Couldn't ${action}${e.message ? `: ${e.message}` : '.'} Try again.`,
      };
  }
}

/** `run`'s answer, or what it threw (a network failure, say) in words, as a failed Result. */
export async function guarded<T>(action: string, run: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await run();
  } catch (error) {
    return { ok: false, error: describeDataError(error, action) };
  }
}

/**
 * The answer of a write that selects the rows it changed: its error in words, or, when it
 * changed none (RLS hid the row, or it is gone), `forbidden` with `refusal`.
 */
export function changed(
  { data, error }: { data: unknown[] | null; error: unknown },
  action: string,
  refusal: string,
): Result<null> {
  if (error) return { ok: false, error: describeDataError(error, action) };
  if (!data || data.length === 0) return { ok: false, error: { code: 'forbidden', message: refusal } };
  return { ok: true, value: null };
}
