import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LiveFeed } from './LiveFeed.js';
import { ACTION_OF_TOPIC } from './recoveryEvent.js';

/** The breaker states as numbers for the `loopguard_breaker_state` gauge. */
export const BREAKER_STATE_VALUES: Readonly<Record<string, number>> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };

/**
 * Counts already in the store when the server starts, so that counters do not restart at zero.
 * @example { attempts: 120, recoveries: [{ topic: 'loop_recovery', loopType: 'completed_task_revisit', count: 2 }] }
 */
export interface MetricsBaseline {
  /** Attempts recorded before the server started. */
  attempts: number;
  /** Recovery entries by topic and loop type. */
  recoveries: readonly { topic: string; loopType: string | null; count: number }[];
}

/**
 * A prom-client registry with loopguard's metrics, fed by `feed`:
 * `loopguard_attempts_recorded_total`, `loopguard_loops_detected_total{loop_type}`,
 * `loopguard_recoveries_total{action}`, `loopguard_guard_triggers_total{guard}`,
 * `loopguard_breaker_state` (0 closed, 1 half open, 2 open) and `loopguard_tick_duration_seconds`.
 * @example
 * const registry = createMetrics(feed, { attempts: 0, recoveries: [] });
 * res.end(await registry.metrics());
 */
export function createMetrics(feed: LiveFeed, baseline: MetricsBaseline): Registry {
  const registry = new Registry();
  const attempts = new Counter({
    name: 'loopguard_attempts_recorded_total',
    help: 'Task attempts recorded by the loop detector.',
    registers: [registry],
  });
  const loops = new Counter({
    name: 'loopguard_loops_detected_total',
    help: 'Loops detected, by loop type.',
    labelNames: ['loop_type'],
    registers: [registry],
  });
  const recoveries = new Counter({
    name: 'loopguard_recoveries_total',
    help: 'Recoveries written, by action (force_next, unblock_authority, escalate).',
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

  attempts.inc(baseline.attempts);
  for (const { topic, loopType, count } of baseline.recoveries) {
    recoveries.inc({ action: ACTION_OF_TOPIC[topic] ?? topic }, count);
    if (loopType !== null) loops.inc({ loop_type: loopType }, count);
  }
  feed.on('attemptsRecorded', ({ count }) => attempts.inc(count));
  feed.on('loopDetected', ({ loopType }) => loops.inc({ loop_type: loopType }));
  feed.on('recoveryApplied', ({ action }) => recoveries.inc({ action }));
  feed.on('guardTriggered', ({ guard }) => guards.inc({ guard }));
  feed.on('breakerStateChanged', ({ state }) => breaker.set(BREAKER_STATE_VALUES[state] ?? -1));
  feed.on('tickFinished', ({ durationMs, success }) =>
    ticks.observe({ success: String(success) }, durationMs / 1000),
  );
  return registry;
}
