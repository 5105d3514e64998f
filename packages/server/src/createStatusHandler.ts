import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, systemClock } from '@loopguard/core';
import type { LoopGuardDatabase } from '@loopguard/sqlite';
import type { Registry } from 'prom-client';
import { attachEmitter, type LiveEmitter } from './attachEmitter.js';
import { DatabaseReader } from './DatabaseReader.js';
import { followDatabase } from './followDatabase.js';
import { HttpError } from './httpError.js';
import { type BreakerView, LiveFeed, type LiveFeedEvents } from './LiveFeed.js';
import { createMetrics } from './metrics.js';
import { parseRecoveriesQuery, parseStatusQuery, type StatusQuery } from './queryParams.js';
import { loadStaticAssets } from './staticAssets.js';
import { statusSnapshot } from './statusSnapshot.js';

/** The Content-Security-Policy of every response: no inline script or style, same-origin only. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The cookie the dashboard page keeps the token in after `/?token=…`. */
const TOKEN_COOKIE = 'loopguard_token';

/**
 * A live `OrchestratorLoop` (or anything with its `getStatus()` and events).
 * @example const handler = createStatusHandler({ database, loop });
 */
export interface StatusLoop extends LiveEmitter {
  getStatus(): { running: boolean; tickCount: number; guards?: unknown };
}

/**
 * Options of {@link createStatusHandler}.
 * @example
 * createStatusHandler({ database: openLoopGuardDatabase('state.db', { readonly: true }), token: process.env.LOOPGUARD_TOKEN });
 */
export interface StatusHandlerOptions {
  /** The loopguard database the tasks and recoveries are read from (read-only is enough). */
  database: LoopGuardDatabase;
  /**
   * A live `OrchestratorLoop` in this process: `running`, `tickCount` and `guards` come from its
   * `getStatus()`, and its events are streamed. Without a loop, `running` says whether an attempt
   * was stored in the last minute and `tickCount` counts attempts (stored at start, recorded since).
   * Without it (and without `emitters`) the server
   * follows the database file for new attempts and recoveries.
   */
  loop?: StatusLoop;
  /** More in-process emitters to stream (a `LoopDetector`, `IterationSessions`, a breaker). @default [] */
  emitters?: readonly LiveEmitter[];
  /**
   * The stagnation breaker's state now; `/status` has no `breaker` field when it returns `undefined`.
   * @default the breaker of the newest `loopguard run` in the database (schema 4's `runs` table), if any
   */
  breaker?: () => BreakerView | undefined;
  /**
   * A bearer token every request must carry (`Authorization: Bearer <token>`; the dashboard takes it
   * once as `/?token=…` and keeps it in an HttpOnly cookie). @default undefined (no token)
   */
  token?: string;
  /** The detector's attempt window for `attemptCount`. @default 3600000 */
  attemptWindowMs?: number;
  /** How often a followed database file is polled, ms. @default 500 */
  followIntervalMs?: number;
  /** Largest request body accepted (no route takes one; larger gets 413). @default 16384 */
  maxBodyBytes?: number;
  /** Event streams open at once; more get 503. @default 100 */
  maxEventStreams?: number;
  /**
   * How long a `/status` or `/recoveries` answer is reused for the same query while the database
   * has not changed, ms (many dashboards polling one server cost one query a second). 0 disables it.
   * @default 1000
   */
  cacheMs?: number;
  /** Interval of the keep-alive comment on event streams, ms. @default 15000 */
  heartbeatMs?: number;
  /** Source of "now". @default systemClock */
  clock?: Clock;
}

/**
 * A `node:http` request listener (also usable as Express or Fastify middleware) with the feed and
 * the metrics registry it serves, and `close()` to stop following and end event streams.
 */
export interface StatusHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** The live events the handler streams. */
  readonly feed: LiveFeed;
  /** The prom-client registry of `/metrics`. */
  readonly registry: Registry;
  /** Stops following the file, detaches emitters and ends open event streams. Idempotent. */
  close(): void;
}

const STREAMED_EVENTS: readonly (keyof LiveFeedEvents)[] = [
  'attemptsRecorded',
  'loopDetected',
  'recoveryApplied',
  'guardTriggered',
  'breakerStateChanged',
];

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function cookieToken(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

function baseHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * Creates the status server's request handler: `GET /status`, `/recoveries`, `/metrics`, `/events`,
 * `/healthz` and the dashboard at `/`. Every response has a strict Content-Security-Policy; bad
 * query parameters get 400, a missing token 401, unknown routes 404, other methods 405, bodies over
 * `maxBodyBytes` 413. With no token, requests whose `Host` is not a loopback name get 403 (DNS
 * rebinding).
 * @example
 * import { createServer } from 'node:http';
 * const handler = createStatusHandler({ database });
 * createServer(handler).listen(7070, '127.0.0.1');
 */
export function createStatusHandler(options: StatusHandlerOptions): StatusHandler {
  const clock = options.clock ?? systemClock;
  const reader = new DatabaseReader({
    database: options.database,
    clock,
    ...(options.attemptWindowMs === undefined ? {} : { attemptWindowMs: options.attemptWindowMs }),
  });
  const feed = new LiveFeed();
  let attemptsRecorded = reader.countAttempts();
  feed.on('attemptsRecorded', ({ count }) => {
    attemptsRecorded += count;
  });
  const registry = createMetrics(feed, { attempts: attemptsRecorded, recoveries: reader.recoveryCounts() });
  const emitters = [...(options.loop ? [options.loop] : []), ...(options.emitters ?? [])];
  const stops =
    emitters.length > 0
      ? emitters.map((emitter) => attachEmitter(feed, emitter))
      : [followDatabase(reader, feed, { intervalMs: options.followIntervalMs ?? 500 })];
  const assets = loadStaticAssets();
  const maxBodyBytes = options.maxBodyBytes ?? 16_384;
  const maxEventStreams = options.maxEventStreams ?? 100;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const streams = new Set<ServerResponse>();
  const token = options.token;
  const cacheMs = options.cacheMs ?? 1000;
  const breakerNow = options.breaker ?? (() => reader.latestBreaker());
  const breakerAtStart = breakerNow();
  if (breakerAtStart) feed.emit('breakerStateChanged', breakerAtStart); // sets the gauge
  const cache = new Map<string, { body: string; stamp: string; at: number }>();

  /** The JSON body for `key`, reused while the database is unchanged and younger than `cacheMs`. */
  function cachedJson(key: string, build: () => unknown): string {
    if (cacheMs <= 0) return JSON.stringify(build());
    const live = options.loop?.getStatus();
    const breaker = breakerNow();
    const stamp = `${reader.changeStamp()}:${live?.tickCount}:${live?.running}:${breaker?.state}`;
    const now = clock.now();
    const hit = cache.get(key);
    if (hit && hit.stamp === stamp && now - hit.at >= 0 && now - hit.at < cacheMs) return hit.body;
    const body = JSON.stringify(build());
    if (cache.size >= 1000) cache.clear();
    cache.set(key, { body, stamp, at: now });
    return body;
  }

  function status(query: StatusQuery): unknown {
    return statusSnapshot(reader, query, {
      clock,
      attemptsRecorded,
      live: options.loop?.getStatus(),
      breaker: breakerNow(),
    });
  }

  function events(req: IncomingMessage, res: ServerResponse): void {
    if (streams.size >= maxEventStreams)
      throw new HttpError(503, `too many event streams (${maxEventStreams})`);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    res.write('retry: 2000\n\n');
    const send = (name: string) => (payload: unknown) =>
      res.write(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
    const listeners = STREAMED_EVENTS.map((name) => [name, send(name)] as const);
    for (const [name, listener] of listeners) feed.on(name, listener);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
    heartbeat.unref();
    streams.add(res);
    const end = (): void => {
      clearInterval(heartbeat);
      for (const [name, listener] of listeners) feed.off(name, listener);
      streams.delete(res);
    };
    req.on('close', end);
    res.on('close', end);
  }

  function authorize(req: IncomingMessage, url: URL, res: ServerResponse): boolean {
    if (token === undefined) {
      if (!isLoopbackHost(req.headers.host))
        throw new HttpError(403, 'Host must be a loopback name when the server has no token');
      return true;
    }
    const header = req.headers.authorization;
    const bearer = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const given = bearer ?? cookieToken(req);
    if (given !== undefined && sameSecret(given, token)) return true;
    const query = url.searchParams.get('token');
    if (url.pathname === '/' && query !== null && sameSecret(query, token)) {
      // The dashboard's one way in: keep the token in a cookie and drop it from the address.
      res.statusCode = 303;
      res.setHeader(
        'Set-Cookie',
        `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
      );
      res.setHeader('Location', './');
      res.end();
      return false;
    }
    res.setHeader('WWW-Authenticate', 'Bearer realm="loopguard"');
    throw new HttpError(401, 'a bearer token is required (Authorization: Bearer <token>)');
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) throw new HttpError(413, `request body over ${maxBodyBytes} bytes`);
    const url = new URL(req.url ?? '/', 'http://loopguard.invalid');
    if (!authorize(req, url, res)) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      await drainBody(req, maxBodyBytes);
      res.setHeader('Allow', 'GET, HEAD');
      throw new HttpError(405, `method ${req.method} is not allowed (the status server is read-only)`);
    }
    const asset = assets.get(url.pathname);
    if (asset) {
      res.statusCode = 200;
      res.setHeader('Content-Type', asset.type);
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('Content-Length', asset.body.length);
      res.end(req.method === 'HEAD' ? undefined : asset.body);
      return;
    }
    switch (url.pathname) {
      case '/status': {
        const query = parseStatusQuery(url.searchParams);
        return sendJsonText(
          res,
          200,
          cachedJson(`status?${url.search}`, () => status(query)),
        );
      }
      case '/recoveries': {
        const query = parseRecoveriesQuery(url.searchParams);
        return sendJsonText(
          res,
          200,
          cachedJson(`recoveries?${url.search}`, () => reader.recoveryPage(query)),
        );
      }
      case '/favicon.ico':
        res.statusCode = 204;
        res.end();
        return;
      case '/healthz':
        return sendJson(res, 200, { ok: true });
      case '/metrics': {
        const text = await registry.metrics();
        res.statusCode = 200;
        res.setHeader('Content-Type', registry.contentType);
        res.setHeader('Cache-Control', 'no-store');
        res.end(text);
        return;
      }
      case '/events':
        return events(req, res);
      default:
        throw new HttpError(404, `no route ${url.pathname}`);
    }
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    baseHeaders(res);
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof HttpError) {
        if (error.status === 413) res.setHeader('Connection', 'close');
        sendJson(res, error.status, { error: error.message });
      } else {
        sendJson(res, 500, {
          error: `internal error: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    });
  }) as StatusHandler;
  let closed = false;
  Object.assign(handler, {
    feed,
    registry,
    close() {
      if (closed) return;
      closed = true;
      for (const stop of stops) stop();
      for (const res of streams) res.end();
      streams.clear();
    },
  });
  return handler;
}

function drainBody(req: IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, `request body over ${limit} bytes`));
      }
    });
    req.on('end', () => resolve());
    req.on('error', reject);
  });
}
