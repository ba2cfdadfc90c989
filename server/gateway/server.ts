import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { JwtError, verifyJwtCached, type JwtClaims } from '../jwt.ts';
import { isRequestRole } from '../postgres/pool.ts';
import type { RequestTally } from '../log.ts';
import { header, sendJson, type RequestContext } from './http.ts';
import { CallerGate, DEFAULT_CALLER_LIMITS, type CallerLimits } from './limits.ts';

/** One service mounted under a path prefix, e.g. `/auth/v1`. */
export interface Service {
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void>;
  /** WebSocket upgrades below the prefix (realtime). */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: RequestContext): void;
  /**
   * Answers a request whose bearer failed verification. Without it the gateway sends
   * a 401 `{code, message}`. Services that must accept some bad tokens (auth's
   * sign-in takes a bearer it ignores) set `tolerateBadToken`.
   */
  rejectToken?(res: ServerResponse, error: JwtError, ctx: RequestContext): void;
  tolerateBadToken?: boolean;
  /**
   * Token roles accepted beyond the request roles (auth's admin API takes supabase_admin
   * tokens, as GoTrue does). Such a request's claims keep that role; it runs SQL as anon.
   */
  acceptedRoles?: readonly string[];
}

export interface GatewayOptions {
  jwtSecret: string;
  /** One line per request; without it only 5xx answers are printed. */
  logRequests: boolean;
  log: (line: string) => void;
  /** Origins besides loopback ones that get CORS answers; `*` allows any. */
  allowedOrigins?: string[];
  limits?: CallerLimits;
  /** False while PostgreSQL is down (crashed, restarting): requests get a 503. */
  databaseUp?: () => boolean;
  /** Counts every answer, for the summary at stop. */
  tally?: RequestTally;
}

/** The app is served from this machine on whatever port (`npm start`, `npm run dev`, tests). */
const LOOPBACK_ORIGIN = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/;

/** Is a browser at `origin` allowed to read the gateway's answers? */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  return LOOPBACK_ORIGIN.test(origin) || allowed.includes('*') || allowed.includes(origin.replace(/\/$/, ''));
}

const ALLOWED_HEADERS =
  'authorization, x-client-info, apikey, content-type, accept, accept-profile, content-profile, prefer, range, ' +
  'x-upsert, x-supabase-api-version, x-retry-count, cache-control, x-region, traceparent, tracestate, baggage';
const EXPOSED_HEADERS =
  'Content-Range, Content-Location, Content-Length, Range, X-Supabase-Api-Version, Preference-Applied, ETag, Location';

/**
 * No Origin (a server, curl): `*`, as hosted. An allowed origin is echoed (credentials
 * work); any other gets no allow-origin header, so its browser withholds the answer.
 */
function corsHeaders(req: IncomingMessage, allowed: readonly string[]): Record<string, string> {
  const origin = header(req, 'origin');
  const base = { 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
  if (origin === undefined) return { 'access-control-allow-origin': '*', ...base };
  return originAllowed(origin, allowed) ? { 'access-control-allow-origin': origin, ...base } : base;
}

function preflight(req: IncomingMessage, res: ServerResponse, allowed: readonly string[]): void {
  const origin = header(req, 'origin');
  if (origin !== undefined && !originAllowed(origin, allowed)) {
    sendJson(
      res,
      403,
      { code: 'origin_not_allowed', message: `Origin ${origin} is not allowed to call this API` },
      { vary: 'Origin' },
    );
    return;
  }
  res.writeHead(200, {
    ...corsHeaders(req, allowed),
    'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    'access-control-allow-headers': header(req, 'access-control-request-headers') ?? ALLOWED_HEADERS,
    'access-control-allow-credentials': 'true',
    'access-control-max-age': '86400',
    'content-length': '0',
  });
  res.end();
}

function bearer(req: IncomingMessage): string | null {
  const value = header(req, 'authorization');
  if (!value) return null;
  const match = /^bearer\s+(.+)$/i.exec(value.trim());
  return match ? match[1]!.trim() : null;
}

/**
 * Builds the context: the caller's JWT, else the apikey as bearer, else anon. A valid JWT
 * without a `role` claim runs as anon (PostgREST's rule); any other role is refused unless
 * the service lists it in `acceptedRoles`.
 */
export function contextFor(
  req: IncomingMessage,
  url: URL,
  servicePath: string,
  secret: string,
  acceptedRoles: readonly string[] = [],
): RequestContext {
  const apikey = header(req, 'apikey') ?? url.searchParams.get('apikey');
  const fromHeader = bearer(req);
  // New-format keys (sb_publishable_/sb_secret_) are not JWTs; they only ever come as apikey.
  const token = fromHeader ?? (apikey && apikey.split('.').length === 3 ? apikey : null);
  let claims: JwtClaims = { role: 'anon' };
  let authError: JwtError | null = null;
  if (token) {
    try {
      claims = verifyJwtCached(token, secret);
      if (claims.role !== undefined && !isRequestRole(claims.role) && !acceptedRoles.includes(String(claims.role))) {
        authError = new JwtError('bad_signature', `invalid JWT: role "${String(claims.role)}" is not allowed`);
      }
    } catch (error) {
      if (!(error instanceof JwtError)) throw error;
      authError = error;
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(', ');
  }
  const role = !authError && isRequestRole(claims.role) ? claims.role : 'anon';
  return {
    id: randomUUID(),
    method: (req.method ?? 'GET').toUpperCase(),
    path: servicePath,
    url,
    token: authError ? null : token,
    apikey: apikey ?? null,
    role,
    claims: authError ? { role: 'anon' } : claims,
    authError,
    headers,
    ip: req.socket.remoteAddress ?? '',
  };
}

/** Who a request counts against: the signed-in user, else the client's address. */
function callerKey(ctx: RequestContext): string {
  const sub = ctx.claims.sub;
  return typeof sub === 'string' && sub !== '' ? `user:${sub}` : `ip:${ctx.ip}`;
}

/**
 * An HTTP server whose closeAllConnections() also ends upgraded (WebSocket) sockets:
 * Node stops tracking a socket as an HTTP connection once it is upgraded, so without
 * this server.close() would wait for every realtime client to leave.
 */
class GatewayServer extends http.Server {
  readonly upgraded = new Set<Duplex>();

  override closeAllConnections(): void {
    super.closeAllConnections();
    for (const socket of this.upgraded) socket.destroy();
    this.upgraded.clear();
  }
}

/** The API gateway: CORS, the apikey to bearer rule, JWT verification, routing, logging. */
export function createGateway(services: Service[], options: GatewayOptions): http.Server {
  const sorted = [...services].sort((a, b) => b.prefix.length - a.prefix.length);
  const route = (pathname: string): { service: Service; rest: string } | null => {
    for (const service of sorted) {
      if (pathname === service.prefix || pathname.startsWith(`${service.prefix}/`)) {
        return { service, rest: pathname.slice(service.prefix.length) || '/' };
      }
    }
    return null;
  };

  const allowed = options.allowedOrigins ?? [];
  const gate = new CallerGate(options.limits ?? DEFAULT_CALLER_LIMITS);
  const server = new GatewayServer((req, res) => {
    const started = process.hrtime.bigint();
    const url = new URL(req.url ?? '/', 'http://localhost');
    for (const [k, v] of Object.entries(corsHeaders(req, allowed))) res.setHeader(k, v);
    res.on('finish', () => {
      options.tally?.record(res.statusCode);
      if (!options.logRequests && res.statusCode < 500) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      options.log(`${req.method} ${url.pathname} ${res.statusCode} ${ms.toFixed(1)}ms`);
    });
    if (req.method === 'OPTIONS') {
      preflight(req, res, allowed);
      return;
    }
    if (options.databaseUp && !options.databaseUp()) {
      sendJson(
        res,
        503,
        { code: 'database_unavailable', message: 'The database is restarting; try again in a moment' },
        { 'retry-after': '1' },
      );
      return;
    }
    const match = route(url.pathname);
    if (!match) {
      sendJson(res, 404, { message: 'no Route matched with those values' });
      return;
    }
    const ctx = contextFor(req, url, match.rest, options.jwtSecret, match.service.acceptedRoles);
    if (ctx.authError && !match.service.tolerateBadToken) {
      if (match.service.rejectToken) match.service.rejectToken(res, ctx.authError, ctx);
      else sendJson(res, 401, { code: 'bad_jwt', message: ctx.authError.message });
      return;
    }
    const admission = ctx.role === 'service_role' ? null : gate.admit(callerKey(ctx));
    if (admission && !admission.ok) {
      const message =
        admission.reason === 'rate'
          ? 'Too many requests from this user; slow down'
          : 'Too many requests from this user are waiting; wait for some to finish';
      // Both shapes at once: GoTrue's {code, message} and PostgREST's {code, details, hint, message}.
      sendJson(
        res,
        429,
        {
          code: 'over_request_rate_limit',
          details: null,
          hint: `Retry after ${admission.retryAfterSeconds} s`,
          message,
        },
        {
          'retry-after': String(admission.retryAfterSeconds),
        },
      );
      return;
    }
    if (admission) res.once('close', () => admission.release());
    const run = admission
      ? admission.turn.then(() => match.service.handle(req, res, ctx))
      : match.service.handle(req, res, ctx);
    run.catch((error: unknown) => {
      options.log(
        `[gateway] unhandled error on ${req.method} ${url.pathname}: ${error instanceof Error ? error.stack : String(error)}`,
      );
      if (!res.headersSent) sendJson(res, 500, { code: 'internal_error', message: 'Internal server error' });
      else res.end();
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = route(url.pathname);
    if (!match?.service.upgrade) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    socket.on('error', () => undefined);
    server.upgraded.add(socket);
    socket.once('close', () => server.upgraded.delete(socket));
    match.service.upgrade(
      req,
      socket,
      head,
      contextFor(req, url, match.rest, options.jwtSecret, match.service.acceptedRoles),
    );
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
  });
  server.keepAliveTimeout = 65_000;
  return server;
}
