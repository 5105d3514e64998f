import type { Clock } from '@loopguard/core';
import type { StatusReader } from '@loopguard/core/internal';
import { attachEmitter, type LiveEmitter } from './attachEmitter.js';
import { followReader, type StoreFollower } from './followReader.js';
import { type BreakerView, LiveFeed } from './LiveFeed.js';
import { createMetrics, type StatusMetrics } from './metrics.js';
import type { StatusQuery } from './queryParams.js';
import { registerSessionMetrics } from './sessionMetrics.js';
import { type StatusSnapshot, statusSnapshot } from './statusSnapshot.js';

/**
 * A live `OrchestratorLoop` (or anything with its `getStatus()` and events).
 * @example const handler = createStatusHandler({ reader, loop });
 */
export interface StatusLoop extends LiveEmitter {
  /** The loop's state now: whether it runs, its ticks, its guards. */
  getStatus(): { running: boolean; tickCount: number; guards?: unknown };
}

/**
 * What the status answers come from.
 * @example { reader, clock: systemClock, emitters: [], followIntervalMs: 500 }
 */
export interface StatusSourceOptions {
  /** The store's status reader. */
  reader: StatusReader;
  /** The time of the status and the metrics. */
  clock: Clock;
  /** A live loop in this process (its events feed the stream). @default undefined (the store is followed) */
  loop?: StatusLoop | undefined;
  /** In-process emitters whose events feed the stream; empty: the store is followed. */
  emitters: readonly LiveEmitter[];
  /** The stagnation breaker's view, when the server has one. @default undefined (the store's newest run) */
  breaker?: (() => BreakerView | undefined | Promise<BreakerView | undefined>) | undefined;
  /** Why the hooks are switched off now, if they are (`StatusHandlerOptions.hooksOff`). @default undefined (not said) */
  hooksOff?: (() => string | undefined) | undefined;
  /**
   * What the project's configuration changes in the guard, if anything (`StatusHandlerOptions.hooksConfigured`).
   * @default undefined (not said)
   */
  hooksConfigured?: (() => string | undefined) | undefined;
  /** The prices below the pricing library, if any (`StatusHandlerOptions.pricesBelowLibrary`). @default undefined (not said) */
  pricesBelowLibrary?: (() => string | undefined) | undefined;
  /**
   * How far back attempts count on the status page, ms.
   * @default 3,600,000 (one hour, `DEFAULT_ATTEMPT_WINDOW_MS`)
   */
  attemptWindowMs?: number | undefined;
  /** How often the store is followed for new events, ms (`createStatusHandler`'s default: 500). */
  followIntervalMs: number;
}

/**
 * The live side of the server: the feed of events (from in-process emitters, else by following the
 * store), the metrics counting it, and the status built from the store and the live loop.
 */
export interface StatusSources {
  /** The live events, in order. */
  readonly feed: LiveFeed;
  /** The counters of `/metrics`. */
  readonly metrics: StatusMetrics;
  /** Settles once the metrics hold what the store held and the follower runs; rejects when the store cannot be read. */
  readonly ready: Promise<void>;
  /**
   * Settles once the feed (and so the metrics) holds everything committed to the store before the
   * call: `/metrics` reads the state `/recoveries` reads. At once with in-process emitters (nothing
   * to follow). Rejects when the store cannot be read.
   */
  catchUp(): Promise<void>;
  /** The status page for `query`. */
  status(query: StatusQuery): Promise<StatusSnapshot>;
  /**
   * A stamp that changes when a status answer may have changed: the store's change stamp, the live
   * loop's counters and a breaker given in-process. (A run that its store reports `interrupted`
   * because its owner died changes nothing stored: it shows once the cached answer expires.)
   */
  stamp(): Promise<string>;
  /** Stops following and detaches the emitters. */
  stop(): void;
}

function breakerOfRun(reader: StatusReader): () => Promise<BreakerView | undefined> {
  return async () => {
    const run = await reader.latestRun();
    return run === undefined ? undefined : { ...run };
  };
}

/**
 * Starts the sources: counts what the store holds, then follows it (or attaches the emitters).
 * @example const sources = startStatusSources({ reader, clock, emitters: [], followIntervalMs: 500 }); await sources.ready;
 */
export function startStatusSources(options: StatusSourceOptions): StatusSources {
  const { reader, clock, loop } = options;
  const feed = new LiveFeed();
  const metrics = createMetrics(feed);
  registerSessionMetrics(metrics.registry, () => reader.sessionCounts());
  const stops: (() => void)[] = [];
  let follower: StoreFollower | undefined;
  let stopped = false;
  let attemptsRecorded = 0;
  feed.on('attemptsRecorded', ({ count }) => {
    attemptsRecorded += count;
  });
  const breakerNow = options.breaker ?? breakerOfRun(reader);
  const emitters = [...(loop ? [loop] : []), ...options.emitters];
  for (const emitter of emitters) stops.push(attachEmitter(feed, emitter));

  const ready = (async () => {
    const [baseline, position, breaker] = await Promise.all([
      reader.metricsBaseline(),
      emitters.length === 0 ? reader.feedPosition() : undefined,
      breakerNow(),
    ]);
    metrics.countStored(baseline);
    attemptsRecorded += baseline.attempts;
    if (breaker) feed.emit('breakerStateChanged', breaker); // sets the gauge
    if (position !== undefined && !stopped) {
      follower = followReader(reader, position, feed, { intervalMs: options.followIntervalMs });
      stops.push(follower.stop);
    }
  })();
  ready.catch(() => undefined); // reported to each request (and by startStatusServer)

  const catchUp = async () => {
    await ready;
    await follower?.catchUp();
  };
  return {
    feed,
    metrics,
    ready,
    catchUp,
    async status(query) {
      await catchUp(); // tickCount counts the attempts the follower saw
      return statusSnapshot(reader, query, {
        clock,
        attemptsRecorded,
        attemptWindowMs: options.attemptWindowMs,
        live: loop?.getStatus(),
        breaker: await breakerNow(),
        hooksOff: options.hooksOff?.(),
        hooksConfigured: options.hooksConfigured?.(),
        pricesBelowLibrary: options.pricesBelowLibrary?.(),
      });
    },
    async stamp() {
      const live = loop?.getStatus();
      // The store's own breaker changes with the store; a breaker given in-process must be asked.
      const [store, breaker] = await Promise.all([reader.changeStamp(), options.breaker?.()]);
      return JSON.stringify([store, live?.tickCount, live?.running, breaker]);
    },
    stop() {
      stopped = true;
      for (const stop of stops.splice(0)) stop();
    },
  };
}
