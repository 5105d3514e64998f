import { InvalidInputError } from '@loopguard/core';
import {
  RECOVERY_VIEW_TOPICS,
  type RecoveryViewTopic,
  SESSION_VERDICTS,
  type SessionVerdict,
} from '@loopguard/core/internal';

/** The largest page size the server returns. */
export const MAX_PAGE_LIMIT = 1000;

/** Sessions on the first page `/status` carries, unless `sessionLimit` says otherwise. */
export const DEFAULT_STATUS_SESSIONS = 20;

/**
 * Query parameters of `GET /status`.
 * @example { limit: 100, cursor: undefined }
 */
export interface StatusQuery {
  /** Tasks per page, 1..1000. @default 100 */
  limit: number;
  /** The `nextCursor` of the previous page; absent for the first page. */
  cursor: string | undefined;
  /** Sessions on the first page of sessions beside the tasks, 1..1000. @default 20 */
  sessionLimit?: number | undefined;
  /** Only sessions with this verdict on that page (`loopguard status --verdict`; the counts stay every session's). @default every verdict */
  sessionVerdict?: SessionVerdict | undefined;
}

/**
 * Query parameters of `GET /sessions`.
 * @example { limit: 20, cursor: undefined, verdict: 'stopped', sessionId: undefined }
 */
export interface SessionsQuery {
  /** Sessions per page, 1..1000. @default 50 */
  limit: number;
  /** The `nextCursor` of the previous page. */
  cursor: string | undefined;
  /** Only sessions with this verdict (`running`, `clean`, `nudged`, `stopped`, `stopped_on_spend`). */
  verdict: SessionVerdict | undefined;
  /** Only sessions with this id (one id may repeat across agents and projects). */
  sessionId: string | undefined;
}

/**
 * Query parameters of `GET /sessions/entries`: one session, named by its agent and id.
 * @example { agent: 'claude', sessionId: 'b3c1…', limit: 500 }
 */
export interface SessionEntriesQuery {
  /** The session's agent (`claude`, `codex`, `gemini`, `run`, an adapter); required. */
  agent: string;
  /** The session's id; required. */
  sessionId: string;
  /** Entries at most, oldest first, 1..1000. @default 500 */
  limit: number;
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

function limitOf(params: URLSearchParams, fallback: number, name = 'limit'): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const value = /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 1 && value <= MAX_PAGE_LIMIT))
    throw new InvalidInputError(
      `${name} must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${JSON.stringify(raw)}`,
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

/** An id: 1 to 512 characters, none of them a control character (a NUL cannot reach a query). */
function idOf(params: URLSearchParams, name: string): string | undefined {
  const raw = textOf(params, name);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (raw !== undefined && /[\u0000-\u001f\u007f]/.test(raw))
    throw new InvalidInputError(`${name} must not contain control characters`);
  return raw;
}

/** One of `choices` (`undefined` when absent). */
function choiceOf<T extends string>(
  params: URLSearchParams,
  name: string,
  choices: readonly T[],
): T | undefined {
  const raw = params.get(name);
  if (raw !== null && !(choices as readonly string[]).includes(raw))
    throw new InvalidInputError(`${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(raw)}`);
  return (raw ?? undefined) as T | undefined;
}

function requiredIdOf(params: URLSearchParams, name: string): string {
  const value = idOf(params, name);
  if (value === undefined) throw new InvalidInputError(`query parameter ${name} is required`);
  return value;
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
  only(params, ['limit', 'cursor', 'sessionLimit']);
  return {
    limit: limitOf(params, 100),
    cursor: textOf(params, 'cursor'),
    sessionLimit: limitOf(params, DEFAULT_STATUS_SESSIONS, 'sessionLimit'),
  };
}

/**
 * Validates the query of `GET /sessions`.
 * @throws InvalidInputError naming the bad parameter (the server answers 400).
 * @example parseSessionsQuery(new URLSearchParams('verdict=stopped&limit=20'))
 */
export function parseSessionsQuery(params: URLSearchParams): SessionsQuery {
  only(params, ['limit', 'cursor', 'verdict', 'sessionId']);
  return {
    limit: limitOf(params, 50),
    cursor: textOf(params, 'cursor'),
    verdict: choiceOf(params, 'verdict', SESSION_VERDICTS),
    sessionId: idOf(params, 'sessionId'),
  };
}

/**
 * Validates the query of `GET /sessions/entries`.
 * @throws InvalidInputError naming the bad or missing parameter (the server answers 400).
 * @example parseSessionEntriesQuery(new URLSearchParams('agent=claude&sessionId=s1'))
 */
export function parseSessionEntriesQuery(params: URLSearchParams): SessionEntriesQuery {
  only(params, ['agent', 'sessionId', 'limit']);
  return {
    agent: requiredIdOf(params, 'agent'),
    sessionId: requiredIdOf(params, 'sessionId'),
    limit: limitOf(params, 500),
  };
}

/**
 * Validates the query of `GET /recoveries`.
 * @throws InvalidInputError naming the bad parameter (the server answers 400).
 * @example parseRecoveriesQuery(new URLSearchParams('topic=loop_escalation&limit=10'))
 */
export function parseRecoveriesQuery(params: URLSearchParams): RecoveriesQuery {
  only(params, ['limit', 'cursor', 'topic', 'task', 'since', 'until']);
  return {
    limit: limitOf(params, 50),
    cursor: textOf(params, 'cursor'),
    topic: choiceOf(params, 'topic', RECOVERY_VIEW_TOPICS),
    taskId: textOf(params, 'task'),
    since: timeOf(params, 'since'),
    until: timeOf(params, 'until'),
  };
}
