import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StatusReader } from '@loopguard/core/internal';
import type { EventStreams } from './http/eventStreams.js';
import { HttpError } from './http/HttpError.js';
import { drainBody } from './http/readBody.js';
import type { ResponseCache } from './http/responseCache.js';
import { sendJson, sendJsonText } from './http/responses.js';
import {
  parseRecoveriesQuery,
  parseSessionEntriesQuery,
  parseSessionsQuery,
  parseStatusQuery,
} from './queryParams.js';
import type { StaticAsset } from './staticAssets.js';
import type { StatusSources } from './statusSources.js';

/** What the routes answer from. */
export interface RouteContext {
  /** The store's status reader. */
  reader: StatusReader;
  /** The live feed and metrics. */
  sources: StatusSources;
  /** The cache of recent answers. */
  cache: ResponseCache;
  /** The open event streams (`/events`). */
  streams: EventStreams;
  /** The dashboard's files, by path. */
  assets: Map<string, StaticAsset>;
  /** Largest request body read, in bytes. */
  maxBodyBytes: number;
}

/**
 * Answers an authorised request: the dashboard's files, `GET /status`, `/sessions`,
 * `/sessions/entries`, `/recoveries`, `/metrics`, `/events`, `/healthz`.
 * @throws HttpError 404 for an unknown route, 405 for a method other than GET and HEAD; what the
 * query parsers and the store throw.
 */
export async function route(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: RouteContext,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    await drainBody(req, ctx.maxBodyBytes);
    res.setHeader('Allow', 'GET, HEAD');
    throw new HttpError(405, `method ${req.method} is not allowed (the status server is read-only)`);
  }
  const asset = ctx.assets.get(url.pathname);
  if (asset) {
    res.statusCode = 200;
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Length', asset.body.length);
    res.end(req.method === 'HEAD' ? undefined : asset.body);
    return;
  }
  const { sources, cache } = ctx;
  switch (url.pathname) {
    case '/status': {
      const query = parseStatusQuery(url.searchParams);
      await sources.ready;
      return sendJsonText(
        res,
        200,
        await cache.json(`status${url.search}`, sources.stamp, () => sources.status(query)),
      );
    }
    case '/recoveries': {
      const query = parseRecoveriesQuery(url.searchParams);
      const body = await cache.json(`recoveries${url.search}`, sources.stamp, () =>
        ctx.reader.recoveryPage(query),
      );
      return sendJsonText(res, 200, body);
    }
    case '/sessions': {
      const query = parseSessionsQuery(url.searchParams);
      const body = await cache.json(`sessions${url.search}`, sources.stamp, () =>
        ctx.reader.sessionPage(query),
      );
      return sendJsonText(res, 200, body);
    }
    case '/sessions/entries': {
      const { agent, sessionId, limit } = parseSessionEntriesQuery(url.searchParams);
      const body = await cache.json(`entries${url.search}`, sources.stamp, async () => ({
        agent,
        sessionId,
        entries: await ctx.reader.sessionEntries({ agent, sessionId }, limit),
      }));
      return sendJsonText(res, 200, body);
    }
    case '/favicon.ico':
      res.statusCode = 204;
      res.end();
      return;
    case '/healthz':
      return sendJson(res, 200, { ok: true });
    case '/metrics': {
      await sources.catchUp();
      const { registry } = sources.metrics;
      const text = await registry.metrics();
      res.statusCode = 200;
      res.setHeader('Content-Type', registry.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(text);
      return;
    }
    case '/events':
      return ctx.streams.open(req, res);
    default:
      throw new HttpError(404, `no route ${url.pathname}`);
  }
}
