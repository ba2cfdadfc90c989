/** PostgREST's error envelope and status mapping, made in one place. */

export interface ErrorBody {
  code: string;
  details: unknown;
  hint: string | null;
  message: string;
}

/** An error that already knows its HTTP status and body. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
    readonly hint: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): ErrorBody {
    return { code: this.code, details: this.details, hint: this.hint, message: this.message };
  }
}

/** PGRST100: the query string could not be parsed. */
export function parseError(what: string, input: string, details: string): RestError {
  return new RestError(400, 'PGRST100', `failed to parse ${what} (${input})`, details);
}

export function invalidBody(message: string): RestError {
  return new RestError(400, 'PGRST102', message);
}

export function tableNotFound(schema: string, table: string, suggestion: string | null): RestError {
  return new RestError(
    404,
    'PGRST205',
    `Could not find the table '${schema}.${table}' in the schema cache`,
    null,
    suggestion ? `Perhaps you meant the table '${schema}.${suggestion}'` : null,
  );
}

/** A missing column named in select/filter/order: PostgreSQL's own 42703. */
export function columnNotFound(table: string, column: string): RestError {
  return new RestError(400, '42703', `column ${table}.${column} does not exist`);
}

/** A payload or columns= key that is not a column: PGRST204. */
export function payloadColumnNotFound(table: string, column: string): RestError {
  return new RestError(400, 'PGRST204', `Could not find the '${column}' column of '${table}' in the schema cache`);
}

export function schemaNotExposed(exposed: readonly string[]): RestError {
  return new RestError(406, 'PGRST106', `The schema must be one of the following: ${exposed.join(', ')}`);
}

/** What node-postgres reports for a server error. */
interface PgErrorLike {
  code?: unknown;
  message?: unknown;
  detail?: unknown;
  hint?: unknown;
}

function isPgError(error: unknown): error is PgErrorLike & { code: string; message: string } {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as PgErrorLike;
  return typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.message === 'string';
}

/** PostgREST's SQLSTATE -> HTTP status table. */
export function statusForSqlState(code: string, message: string, authenticated: boolean): number {
  if (code === '23503' || code === '23505') return 409;
  if (code === '25006') return 405;
  if (code === '42501') return authenticated ? 403 : 401;
  if (code === '42883') return 404;
  if (code === '42P01') return 404;
  if (code === '42P17') return 500;
  if (code === 'P0001') return 400;
  if (code === '21000') return message.endsWith('requires a WHERE clause') ? 400 : 500;
  if (code === '22023' && message.startsWith('role') && message.endsWith('does not exist')) return 401;
  if (code === '53400') return 500;
  if (code === '57P01') return 503;
  if (code.startsWith('PT')) {
    const status = Number(code.slice(2));
    return Number.isInteger(status) && status >= 100 && status <= 599 ? status : 500;
  }
  const prefix = code.slice(0, 2);
  switch (prefix) {
    case '08':
    case '53':
      return 503;
    case '0L':
    case '0P':
    case '28':
      return 403;
    case '09':
    case '25':
    case '2D':
    case '38':
    case '39':
    case '3B':
    case '40':
    case '54':
    case '55':
    case '57':
    case '58':
    case 'F0':
    case 'HV':
    case 'P0':
    case 'XX':
      return 500;
    default:
      return 400;
  }
}

/**
 * Turns anything thrown while serving a request into a RestError. PostgreSQL errors
 * pass through with their SQLSTATE; `raise sqlstate 'PGRST'` carries its own JSON.
 */
export function toRestError(error: unknown, authenticated: boolean, method: string): RestError {
  if (error instanceof RestError) return error;
  if (isPgError(error)) {
    const details = typeof error.detail === 'string' ? error.detail : null;
    const hint = typeof error.hint === 'string' ? error.hint : null;
    if (error.code === 'PGRST') return raisedPgrst(error.message, details);
    let status = statusForSqlState(error.code, error.message, authenticated);
    // postgrest-js retries GET/HEAD on 503 and 520; a database-side failure there is a 500.
    if ((method === 'GET' || method === 'HEAD') && (status === 503 || status === 520)) status = 500;
    return new RestError(
      status,
      error.code,
      error.message,
      details,
      hint,
      status === 401 ? { 'www-authenticate': 'Bearer' } : {},
    );
  }
  return new RestError(500, 'PGRSTX00', 'Internal server error');
}

/** `raise sqlstate 'PGRST' using message = '{"code":..}', detail = '{"status":..,"headers":{}}'`. */
function raisedPgrst(message: string, detail: string | null): RestError {
  try {
    const m = JSON.parse(message) as Record<string, unknown>;
    const d = JSON.parse(detail ?? '') as Record<string, unknown>;
    const status = Number(d.status);
    if (typeof m.code !== 'string' || typeof m.message !== 'string' || !Number.isInteger(status))
      throw new Error('shape');
    const headers: Record<string, string> = {};
    if (d.headers && typeof d.headers === 'object') {
      for (const [k, v] of Object.entries(d.headers as Record<string, unknown>))
        if (typeof v === 'string') headers[k.toLowerCase()] = v;
    }
    return new RestError(
      status,
      m.code,
      m.message,
      typeof m.details === 'string' ? m.details : null,
      typeof m.hint === 'string' ? m.hint : null,
      headers,
    );
  } catch {
    return new RestError(
      500,
      'PGRST121',
      'Could not parse JSON in the "RAISE SQLSTATE \'PGRST\'" error',
      detail === null ? 'DETAIL is missing in the RAISE statement' : `Invalid JSON value for MESSAGE: '${message}'`,
    );
  }
}
