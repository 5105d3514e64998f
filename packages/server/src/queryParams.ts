import { InvalidInputError } from '@loopguard/core';
import { RECOVERY_VIEW_TOPICS, type RecoveryViewTopic } from '@loopguard/core/internal';

/** The largest page size the server returns. */
export const MAX_PAGE_LIMIT = 1000;

/**
 * Query parameters of `GET /status`.
 * @example { limit: 100, cursor: undefined }
 */
export interface StatusQuery {
  /** Tasks per page, 1..1000. @default 100 */
  limit: number;
  /** The `nextCursor` of the previous page; absent for the first page. */
  cursor: string | undefined;
}

/**
 * Query parameters of `GET /recoveries`.
 * @example { limit: 50, topic: 'unblock_authority', taskId: 'T3.4.3', since: 1760825000000 }
 */
export interface RecoveriesQuery {
  /** Entries per page, 1..1000. @default 50 */
  limit: number;
  /** The `nextCursor` of the previous page. */
  cursor: string | undefined;
  /** Only this topic: a recovery topic, `loop_nudge` or `loop_stop`. */
  topic: RecoveryViewTopic | undefined;
  /** Only entries about this task. */
  taskId: string | undefined;
  /** Only entries at or after this time (epoch ms; `since=` also takes an ISO date). */
  since: number | undefined;
  /** Only entries before this time (epoch ms or ISO date). */
  until: number | undefined;
}

function only(params: URLSearchParams, allowed: readonly string[]): void {
  for (const name of new Set(params.keys())) {
    if (!allowed.includes(name))
      throw new InvalidInputError(
        `unknown query parameter ${JSON.stringify(name)} (allowed: ${allowed.join(', ')})`,
      );
    if (params.getAll(name).length > 1) throw new InvalidInputError(`query parameter ${name} is given twice`);
  }
}

function limitOf(params: URLSearchParams, fallback: number): number {
  const raw = params.get('limit');
  if (raw === null) return fallback;
  const value = /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 1 && value <= MAX_PAGE_LIMIT))
    throw new InvalidInputError(
      `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${JSON.stringify(raw)}`,
    );
  return value;
}

function textOf(params: URLSearchParams, name: string): string | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (raw.length === 0 || raw.length > 512)
    throw new InvalidInputError(`${name} must be 1 to 512 characters, got ${raw.length}`);
  return raw;
}

/**
 * Parses a time parameter: epoch milliseconds, or an ISO 8601 date or date-time.
 * @example timeOf(new URLSearchParams('since=2025-10-18'), 'since') // 1760745600000
 */
export function parseTime(raw: string, name: string): number {
  const value = /^\d{1,16}$/.test(raw)
    ? Number(raw)
    : /^\d{4}-\d{2}-\d{2}/.test(raw)
      ? Date.parse(raw)
      : Number.NaN;
  if (!Number.isFinite(value))
    throw new InvalidInputError(
      `${name} must be epoch milliseconds or an ISO date, got ${JSON.stringify(raw)}`,
    );
  return value;
}

function timeOf(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  return raw === null ? undefined : parseTime(raw, name);
}

/**
 * Validates the query of `GET /status`.
 * @throws InvalidInputError naming the bad parameter (the server answers 400).
 * @example parseStatusQuery(new URLSearchParams('limit=100'))
 */
export function parseStatusQuery(params: URLSearchParams): StatusQuery {
  only(params, ['limit', 'cursor']);
  return { limit: limitOf(params, 100), cursor: textOf(params, 'cursor') };
}

/**
 * Validates the query of `GET /recoveries`.
 * @throws InvalidInputError naming the bad parameter (the server answers 400).
 * @example parseRecoveriesQuery(new URLSearchParams('topic=loop_escalation&limit=10'))
 */
export function parseRecoveriesQuery(params: URLSearchParams): RecoveriesQuery {
  only(params, ['limit', 'cursor', 'topic', 'task', 'since', 'until']);
  const topic = params.get('topic');
  if (topic !== null && !(RECOVERY_VIEW_TOPICS as readonly string[]).includes(topic))
    throw new InvalidInputError(
      `topic must be one of ${RECOVERY_VIEW_TOPICS.join(', ')}, got ${JSON.stringify(topic)}`,
    );
  return {
    limit: limitOf(params, 50),
    cursor: textOf(params, 'cursor'),
    topic: (topic ?? undefined) as RecoveriesQuery['topic'],
    taskId: textOf(params, 'task'),
    since: timeOf(params, 'since'),
    until: timeOf(params, 'until'),
  };
}
