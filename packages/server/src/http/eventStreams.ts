import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveFeed, LiveFeedEvents } from '../LiveFeed.js';
import { HttpError } from './HttpError.js';

/** The feed's events sent to `/events` clients (tick durations only go to the metrics). */
const STREAMED_EVENTS: readonly (keyof LiveFeedEvents)[] = [
  'attemptsRecorded',
  'loopDetected',
  'recoveryApplied',
  'guardTriggered',
  'breakerStateChanged',
];

/** The open server-sent event streams of `GET /events`. */
export interface EventStreams {
  /** Starts streaming the feed's events to `res`. @throws HttpError 503 over the stream limit. */
  open(req: IncomingMessage, res: ServerResponse): void;
  /** Ends every open stream. */
  endAll(): void;
}

/**
 * Creates the event streams over `feed`: at most `max` open at once, a keep-alive comment every
 * `heartbeatMs`.
 * @example const streams = createEventStreams(feed, { max: 100, heartbeatMs: 15_000 });
 */
export function createEventStreams(
  feed: LiveFeed,
  limits: { max: number; heartbeatMs: number },
): EventStreams {
  const streams = new Set<ServerResponse>();
  return {
    open(req, res) {
      if (streams.size >= limits.max) throw new HttpError(503, `too many event streams (${limits.max})`);
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
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), limits.heartbeatMs);
      heartbeat.unref();
      streams.add(res);
      const end = (): void => {
        clearInterval(heartbeat);
        for (const [name, listener] of listeners) feed.off(name, listener);
        streams.delete(res);
      };
      req.on('close', end);
      res.on('close', end);
    },
    endAll() {
      for (const res of streams) res.end();
      streams.clear();
    },
  };
}
