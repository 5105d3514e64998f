import type { Clock } from '@loopguard/core';
import type {
  SessionCounts,
  SessionVerdict,
  SessionView,
  StatusReader,
  TaskStatusRow,
} from '@loopguard/core/internal';
import type { BreakerView } from './LiveFeed.js';
import { DEFAULT_STATUS_SESSIONS, type StatusQuery } from './queryParams.js';

/** How recent the newest attempt must be for a store without a live loop to count as running, ms. */
export const RUNNING_WINDOW_MS = 60_000;

/** The detector's default attempt window, ms: `attemptCount` counts attempts this recent. */
export const DEFAULT_ATTEMPT_WINDOW_MS = 3_600_000;

/**
 * The body of `GET /status` and of `loopguard status --json`: the newest agent sessions with their
 * verdicts and every session counted by verdict; the orchestrator's shape (`running`, `tickCount`,
 * `loopDetection`) with the page of tasks, guard statistics and the breaker.
 * @example { sessions: { sessions: [{ agent: 'claude', verdict: 'stopped', summary: 'stopped by loopguard at call 4 (same error), 4 tool calls ran, 1 nudge', … }], nextCursor: null, counts: { running: 0, clean: 0, nudged: 0, stopped: 1, stopped_on_spend: 0 }, spendByAgent: [] }, running: true, tickCount: 45, loopDetection: {}, tasks: […], page: { limit: 100, total: 2, nextCursor: null }, source: 'database', generatedAt: 1760825100000 }
 */
export interface StatusSnapshot {
  /**
   * The agent sessions: the newest of every door (the first page of `/sessions`, most recently
   * active first) and the cursor of `/sessions` for the next page; every stored session counted by
   * verdict, and what the spend guard counted per agent (tokens, dollars).
   */
  sessions: {
    sessions: SessionView[];
    nextCursor: string | null;
    counts: Record<SessionVerdict, number>;
    spendByAgent: SessionCounts['spendByAgent'];
    /** {@link SessionCounts}' `spent`: all agents' spend as every door writes it. */
    spent: string;
  };
  /** The live loop's `running`; from a store: whether an attempt was stored in the last minute. */
  running: boolean;
  /** The live loop's tick count; from a store: the attempts recorded. */
  tickCount: number;
  /**
   * Tasks of this page with attempts in the window: `{ attemptCount, lastAttempt }`. A map without a
   * prototype, so that any task id (`__proto__` included) is an ordinary key.
   */
  loopDetection: Record<string, { attemptCount: number; lastAttempt: number }>;
  /** This page of tasks, by id. */
  tasks: TaskStatusRow[];
  /** Tasks on this page, tasks in all, and the cursor of the next page (`null` on the last). */
  page: { limit: number; total: number; nextCursor: string | null };
  /** The live loop's guard statistics; absent without a live loop that has them. */
  guards?: unknown;
  /** The stagnation breaker (and the run it belongs to, with its state); absent when unknown. */
  breaker?: BreakerView;
  /**
   * Why the hooks that write this store are switched off now (`loopguard serve` and `status` over
   * a project's database: `off in this project (hook.enabled: false in loopguard.config.yaml):
   * loopguard guards no session here`); absent while they are on or when unknown (PostgreSQL).
   */
  hooksOff?: string;
  /**
   * What the project's configuration changes in the guard, and the file it comes from (`loopguard
   * serve` and `status` over a project's database: `settings of this project (…): commands matching
   * "^npm " are exempt: loopguard judges none of their calls; stopAfter 1000 (default 1)`); absent
   * when it changes nothing, or when unknown (PostgreSQL).
   */
  hooksConfigured?: string;
  /**
   * The models the project's configuration prices below the pricing library, and the file
   * (`loopguard serve` and `status` over a project's database); absent when none, or unknown.
   */
  pricesBelowLibrary?: string;
  /** Where `running` and `tickCount` come from. */
  source: 'loop' | 'database';
  /** When the snapshot was taken, epoch ms. */
  generatedAt: number;
}

/**
 * Where a {@link statusSnapshot} gets what the store does not hold.
 * @example { clock: systemClock, attemptsRecorded: 120 }
 */
export interface StatusSnapshotSources {
  /** Source of "now". */
  clock: Clock;
  /** Attempts recorded, for `tickCount` without a live loop. */
  attemptsRecorded: number;
  /** The detector's attempt window, ms. @default 3600000 */
  attemptWindowMs?: number | undefined;
  /** A live loop's status. */
  live?: { running: boolean; tickCount: number; guards?: unknown } | undefined;
  /** The breaker's state, when known. */
  breaker?: BreakerView | undefined;
  /** Why the hooks are switched off, when they are (the snapshot's `hooksOff`). */
  hooksOff?: string | undefined;
  /** What the project's configuration changes in the guard, if anything (the snapshot's `hooksConfigured`). */
  hooksConfigured?: string | undefined;
  /** The prices below the pricing library, if any (the snapshot's `pricesBelowLibrary`). */
  pricesBelowLibrary?: string | undefined;
}

/**
 * Builds the status: the newest sessions (`query.sessionLimit`, default 20) and one page of tasks.
 * @example await statusSnapshot(reader, { limit: 100, cursor: undefined }, { clock: systemClock, attemptsRecorded: 0 })
 */
export async function statusSnapshot(
  reader: StatusReader,
  query: StatusQuery,
  sources: StatusSnapshotSources,
): Promise<StatusSnapshot> {
  const { live, breaker, clock } = sources;
  const attemptsSince = clock.now() - (sources.attemptWindowMs ?? DEFAULT_ATTEMPT_WINDOW_MS);
  const [page, lastAttempt, sessions, sessionCounts] = await Promise.all([
    reader.taskPage({ limit: query.limit, cursor: query.cursor, attemptsSince }),
    live ? null : reader.lastAttemptAt(),
    reader.sessionPage({
      limit: query.sessionLimit ?? DEFAULT_STATUS_SESSIONS,
      verdict: query.sessionVerdict,
    }),
    reader.sessionCounts(),
  ]);
  const loopDetection: StatusSnapshot['loopDetection'] = Object.create(null);
  for (const task of page.tasks) {
    if (task.attemptCount > 0 && task.lastAttempt !== null)
      loopDetection[task.id] = { attemptCount: task.attemptCount, lastAttempt: task.lastAttempt };
  }
  return {
    sessions: {
      sessions: sessions.sessions,
      nextCursor: sessions.nextCursor,
      counts: sessionCounts.byVerdict,
      spendByAgent: sessionCounts.spendByAgent,
      spent: sessionCounts.spent,
    },
    running: live ? live.running : lastAttempt !== null && clock.now() - lastAttempt < RUNNING_WINDOW_MS,
    tickCount: live ? live.tickCount : sources.attemptsRecorded,
    loopDetection,
    tasks: page.tasks,
    page: { limit: page.tasks.length, total: page.total, nextCursor: page.nextCursor },
    ...(live?.guards ? { guards: live.guards } : {}),
    ...(breaker ? { breaker } : {}),
    ...(sources.hooksOff === undefined ? {} : { hooksOff: sources.hooksOff }),
    ...(sources.hooksConfigured === undefined ? {} : { hooksConfigured: sources.hooksConfigured }),
    ...(sources.pricesBelowLibrary === undefined ? {} : { pricesBelowLibrary: sources.pricesBelowLibrary }),
    source: live ? 'loop' : 'database',
    generatedAt: clock.now(),
  };
}
