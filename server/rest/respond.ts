import type { ServerResponse } from 'node:http';
import { RestError } from './errors.ts';
import type { ResponseFormat } from './parse/headers.ts';
import type { ResultRow } from './plan/statement.ts';

const CONTENT_TYPES: Record<ResponseFormat, string> = {
  json: 'application/json; charset=utf-8',
  object: 'application/vnd.pgrst.object+json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

export function sendError(res: ServerResponse, error: RestError): void {
  const text = JSON.stringify(error.body());
  res.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...error.headers,
  });
  res.end(text);
}

export function contentRange(offset: number, page: number, total: number | null): string {
  const all = total === null ? '*' : String(total);
  return page === 0 ? `*/${all}` : `${offset}-${offset + page - 1}/${all}`;
}

/** The first row of a JSON array PostgreSQL rendered, or an error unless exactly one. */
export function singular(body: string, page: number): string {
  if (page !== 1) throw singularError(page);
  // json_agg renders one element as `[<element>]`.
  return body.slice(1, -1);
}

/** PGRST116 in PostgREST 13's words. */
export function singularError(page: number): RestError {
  return new RestError(
    406,
    'PGRST116',
    'Cannot coerce the result to a single JSON object',
    `The result contains ${page} rows`,
  );
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(body: string): string {
  const rows = JSON.parse(body) as Record<string, unknown>[];
  if (rows.length === 0) return '';
  const columns = Object.keys(rows[0]!);
  const lines = [columns.map(csvCell).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(row[c])).join(','));
  return lines.join('\n');
}

/** Headers and status set from SQL through `response.headers` / `response.status`. */
export function applyGucs(row: ResultRow | undefined, headers: Record<string, string>, status: number): number {
  if (!row) return status;
  if (row.headers) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.headers);
    } catch {
      parsed = null;
    }
    if (!Array.isArray(parsed)) throw gucHeadersError();
    for (const entry of parsed) {
      if (typeof entry !== 'object' || entry === null) throw gucHeadersError();
      const pairs = Object.entries(entry as Record<string, unknown>);
      if (pairs.length !== 1 || typeof pairs[0]![1] !== 'string') throw gucHeadersError();
      headers[pairs[0]![0].toLowerCase()] = pairs[0]![1];
    }
  }
  if (row.status) {
    const s = Number(row.status);
    if (!Number.isInteger(s) || s < 100 || s > 599)
      throw new RestError(500, 'PGRST112', 'response.status guc must be a valid status code');
    return s;
  }
  return status;
}

function gucHeadersError(): RestError {
  return new RestError(
    500,
    'PGRST111',
    'response.headers guc must be a JSON array composed of objects with a single key and a string value',
  );
}

function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, stripNulls(v)]),
    );
  }
  return value;
}

export function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | null,
  format: ResponseFormat,
  head: boolean,
  stripped = false,
  rendered = false,
): void {
  if (body === null || status === 204) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  let text = format === 'csv' && !rendered ? toCsv(body) : body;
  let type = CONTENT_TYPES[format];
  if (stripped && format !== 'csv') {
    text = JSON.stringify(stripNulls(JSON.parse(text)));
    type = `application/vnd.pgrst.${format === 'object' ? 'object' : 'array'}+json;nulls=stripped; charset=utf-8`;
  }
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(head ? undefined : text);
}
