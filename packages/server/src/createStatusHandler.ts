import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, ConfigurationError, systemClock } from '@loopguard/core';
import type { StatusReader } from '@loopguard/core/internal';
import type { Registry } from 'prom-client';
import type { LiveEmitter } from './attachEmitter.js';
import { checkHandlerOptions } from './handlerOptions.js';
import { authorize, dashboardFolder } from './http/authorize.js';
import { createEventStreams } from './http/eventStreams.js';
import { checkDeclaredBody } from './http/readBody.js';
import { requestUrl } from './http/requestTarget.js';
import { createResponseCache } from './http/responseCache.js';
import { sendError, setSecurityHeaders } from './http/responses.js';
import type { BreakerView, LiveFeed } from './LiveFeed.js';
import { route } from './routes.js';
import { loadStaticAssets } from './staticAssets.js';
import { type StatusLoop, startStatusSources } from './statusSources.js';

/**
 * Options of {@link createStatusHandler}.
 * @example
 * createStatusHandler({ reader: new SqliteStatusReader(openLoopGuardDatabase('state.db', { readonly: true })), token: process.env.LOOPGUARD_TOKEN });
 */
export interface StatusHandlerOptions {
  /**
   * Where tasks, recoveries and new entries are read: `SqliteStatusReader` (`@loopguard/sqlite`) or
   * `PgStatusReader` (`@loopguard/postgres`), or any `StatusReader`.
   */
  reader: StatusReader;
  /**
   * A live `OrchestratorLoop` in this process: `running`, `tickCount` and `guards` come from its
   * `getStatus()`, and its events are streamed. Without a loop, `running` says whether an attempt
   * was stored in the last minute and `tickCount` counts attempts (stored at start, recorded since).
   * Without it (and without `emitters`) the server follows the store for new attempts and recoveries.
   * @default undefined (the store is followed)
   */
  loop?: StatusLoop;
  /** More in-process emitters to stream (a `LoopDetector`, `IterationSessions`, a breaker). @default [] */
  emitters?: readonly LiveEmitter[];
  /**
   * The stagnation breaker's state now; `/status` has no `breaker` field when it returns `undefined`.
   * @default the breaker of the newest `loopguard run` in the store, with the run's state, if any
   */
  breaker?: () => BreakerView | undefined | Promise<BreakerView | undefined>;
  /**
   * Why the hooks that write the store are switched off now, as a sentence, or `undefined` while
   * they are on: `/status` carries it as `hooksOff` (absent while `undefined`) and the dashboard
   * shows it under its header. Asked on every `/status` answer built (the cached one lasts
   * `cacheMs`), so it must be quick and must not throw. `loopguard serve` gives the project's off
   * switch for a project's SQLite database (`off in this project (hook.enabled: false in
   * loopguard.config.yaml): loopguard guards no session here`, the words of `loopguard status`).
   * @default undefined (nothing said)
   */
  hooksOff?: () => string | undefined;
  /**
   * What the project's configuration changes in the guard (exemptions, thresholds), as a sentence,
   * or `undefined` when it changes nothing: `/status` carries it as `hooksConfigured` (absent while
   * `undefined`) and the dashboard shows it under its header, as {@link StatusHandlerOptions.hooksOff}.
   * Asked as `hooksOff` is; must be quick and must not throw. `loopguard serve` gives a project's
   * own settings and the file they come from (`settings of this project (/repo/loopguard.config.yaml,
   * which git tracks: it came with the repository): commands matching "^npm " are exempt: loopguard
   * judges none of their calls; stopAfter 1000 (default 1)`, the words of `loopguard status`).
   * @default undefined (nothing said)
   */
  hooksConfigured?: () => string | undefined;
  /**
   * The models the project's configuration prices below the pricing library, as a sentence, or
   * `undefined` when none: `/status` carries it as `pricesBelowLibrary` (absent while `undefined`) and
   * the dashboard shows it under its header, as {@link StatusHandlerOptions.hooksOff}: every budget in
   * dollars counts those replies at them. Asked as `hooksOff` is; must not throw. `loopguard serve`
   * gives a project's (`prices in this project below the pricing library's: "claude-sonnet-4-5" input
   * $0.00 (the library: $3.00), … (from /repo/loopguard.config.yaml): every budget in dollars counts
   * these replies at them`, the words of `loopguard status`).
   * @default undefined (nothing said)
   */
  pricesBelowLibrary?: () => string | undefined;
  /**
   * A bearer token every request must carry (`Authorization: Bearer <token>`; the dashboard takes it
   * once as `/?token=…` and keeps it in an HttpOnly cookie). Never empty: an empty cookie would
   * match it. @default undefined (no token)
   */
  token?: string;
  /** The detector's attempt window for `attemptCount`. @default 3600000 */
  attemptWindowMs?: number;
  /** How often the store is polled for new entries when there is no live emitter, ms. @default 500 */
  followIntervalMs?: number;
  /** Largest request body accepted (no route takes one; larger gets 413). @default 16384 */
  maxBodyBytes?: number;
  /** Event streams open at once; more get 503. @default 100 */
  maxEventStreams?: number;
  /**
   * How long a `/status`, `/sessions` or `/recoveries` answer is reused for the same query while the store has
   * not changed, ms (many dashboards polling one server cost one query a second). 0 disables it.
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
  /** Settles once the store has been read at start; rejects (with the store's error) when it cannot be. */
  readonly ready: Promise<void>;
  /** Stops following the store, detaches emitters and ends open event streams. Idempotent. */
  close(): void;
}

/**
 * Creates the status server's request handler: `GET /status`, `/sessions`, `/sessions/entries`,
 * `/recoveries`, `/metrics`, `/events`, `/healthz` and the dashboard at `/`. Every response has a strict Content-Security-Policy. Before
 * authentication, a request target that is not a URL gets 400 and a declared body over
 * `maxBodyBytes` 413; then a missing or malformed token gets 401 (with no token, a `Host` that is not
 * a loopback name gets 403: DNS rebinding); then bad query parameters get 400, unknown routes 404,
 * other methods 405, a store out of reach 503.
 * @throws ConfigurationError when `token` is empty, `reader` is missing or a numeric option is not a
 * whole number of at least its minimum (1 ms for the intervals, 0 for the limits and `cacheMs`).
 * @example
 * import { createServer } from 'node:http';
 * const handler = createStatusHandler({ reader: new SqliteStatusReader(database) });
 * createServer(handler).listen(7070, '127.0.0.1');
 */
export function createStatusHandler(options: StatusHandlerOptions): StatusHandler {
  // `LOOPGUARD_TOKEN=` set from an unset variable: every request with an empty cookie would pass
  if (options.token === '')
    throw new ConfigurationError('token must not be empty (token option, --token or LOOPGUARD_TOKEN)');
  checkHandlerOptions(options);
  const clock = options.clock ?? systemClock;
  const sources = startStatusSources({
    reader: options.reader,
    clock,
    loop: options.loop,
    emitters: options.emitters ?? [],
    breaker: options.breaker,
    hooksOff: options.hooksOff,
    hooksConfigured: options.hooksConfigured,
    pricesBelowLibrary: options.pricesBelowLibrary,
    attemptWindowMs: options.attemptWindowMs,
    followIntervalMs: options.followIntervalMs ?? 500,
  });
  const streams = createEventStreams(sources.feed, {
    max: options.maxEventStreams ?? 100,
    heartbeatMs: options.heartbeatMs ?? 15_000,
  });
  const maxBodyBytes = options.maxBodyBytes ?? 16_384;
  const folder = options.token === undefined ? undefined : dashboardFolder(options.token);
  const context = {
    reader: options.reader,
    sources,
    streams,
    cache: createResponseCache(options.cacheMs ?? 1000, clock),
    assets: loadStaticAssets(),
    maxBodyBytes,
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    checkDeclaredBody(req, maxBodyBytes);
    const url = requestUrl(req);
    if (!authorize(options.token, req, url, res, clock.now())) return;
    if (folder !== undefined && url.pathname.startsWith(folder))
      url.pathname = url.pathname.slice(folder.length - 1); // the dashboard's folder: the same routes
    await route(req, res, url, context);
  };
  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    setSecurityHeaders(res);
    handle(req, res).catch((error: unknown) => sendError(res, error));
  }) as StatusHandler;
  let closed = false;
  Object.assign(handler, {
    feed: sources.feed,
    registry: sources.metrics.registry,
    ready: sources.ready,
    close() {
      if (closed) return;
      closed = true;
      sources.stop();
      streams.endAll();
    },
  });
  return handler;
}
