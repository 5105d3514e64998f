import { actionOfTopic, type StatusMetricsBaseline } from '@loopguard/core/internal';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LiveFeed } from './LiveFeed.js';

/** The breaker states as numbers for the `loopguard_breaker_state` gauge. */
export const BREAKER_STATE_VALUES: Readonly<Record<string, number>> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };

/**
 * The status server's metrics: the registry `/metrics` serves, and a way to count what the store
 * held at start so that counters do not restart at zero.
 */
export interface StatusMetrics {
  /** The prom-client registry. */
  readonly registry: Registry;
  /** Adds the attempts and recoveries stored before the server started (call once). */
  countStored(baseline: StatusMetricsBaseline): void;
}

/**
 * A prom-client registry with loopguard's metrics, fed by `feed`:
 * `loopguard_attempts_recorded_total`, `loopguard_loops_detected_total{loop_type}`,
 * `loopguard_recoveries_total{action}`, `loopguard_guard_triggers_total{guard}`,
 * `loopguard_breaker_state` (0 closed, 1 half open, 2 open) and `loopguard_tick_duration_seconds`.
 * @example
 * const metrics = createMetrics(feed);
 * metrics.countStored(await reader.metricsBaseline());
 * res.end(await metrics.registry.metrics());
 */
export function createMetrics(feed: LiveFeed): StatusMetrics {
  const registry = new Registry();
  const attempts = new Counter({
    name: 'loopguard_attempts_recorded_total',
    help: 'Task attempts recorded by the loop detector.',
    registers: [registry],
  });
  const loops = new Counter({
    name: 'loopguard_loops_detected_total',
    help: 'Loops detected, by loop type (a nudged, then stopped loop counts once).',
    labelNames: ['loop_type'],
    registers: [registry],
  });
  const recoveries = new Counter({
    name: 'loopguard_recoveries_total',
    help: 'Recoveries written, by action (force_next, unblock_authority, escalate, nudge, stop).',
    labelNames: ['action'],
    registers: [registry],
  });
  const guards = new Counter({
    name: 'loopguard_guard_triggers_total',
    help: 'Iteration sessions stopped by a safety guard, by guard.',
    labelNames: ['guard'],
    registers: [registry],
  });
  const breaker = new Gauge({
    name: 'loopguard_breaker_state',
    help: 'Stagnation breaker state: 0 CLOSED, 1 HALF_OPEN, 2 OPEN.',
    registers: [registry],
  });
  const ticks = new Histogram({
    name: 'loopguard_tick_duration_seconds',
    help: 'Duration of orchestrator ticks.',
    labelNames: ['success'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [registry],
  });

  feed.on('attemptsRecorded', ({ count }) => attempts.inc(count));
  feed.on('loopDetected', ({ loopType }) => loops.inc({ loop_type: loopType }));
  feed.on('recoveryApplied', ({ action }) => recoveries.inc({ action }));
  feed.on('guardTriggered', ({ guard }) => guards.inc({ guard }));
  feed.on('breakerStateChanged', ({ state }) =>
    breaker.set(Object.hasOwn(BREAKER_STATE_VALUES, state) ? (BREAKER_STATE_VALUES[state] as number) : -1),
  );
  feed.on('tickFinished', ({ durationMs, success }) =>
    ticks.observe({ success: String(success) }, durationMs / 1000),
  );
  return {
    registry,
    countStored(baseline) {
      attempts.inc(baseline.attempts);
      for (const { topic, loopType, count, loops: began } of baseline.recoveries) {
        recoveries.inc({ action: actionOfTopic(topic) }, count);
        if (loopType !== null && began > 0) loops.inc({ loop_type: loopType }, began);
      }
    },
  };
}
