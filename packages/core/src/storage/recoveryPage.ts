import { type RecoveryView, recoveryViewOf } from './recoveryView.js';
import { type EntryRow, entryOf } from './rows.js';
import { decodeStatusCursor, encodeStatusCursor } from './statusCursor.js';
import type { RecoveryPage, RecoveryPageQuery } from './statusReader.js';

/**
 * A {@link RecoveryPage} from the rows of a recovery query that asked for `limit + 1` rows, newest
 * first: the first `limit` as recovery views, and a cursor after the last of them when there are more.
 */
export function recoveryPageOf(rows: readonly EntryRow[], limit: number): RecoveryPage {
  const recoveries = recoveryViewsOf(rows.slice(0, limit));
  const last = recoveries.at(-1);
  return {
    recoveries,
    nextCursor: rows.length > limit && last ? encodeStatusCursor([last.timestamp, Number(last.id)]) : null,
  };
}

/**
 * The position a recovery-page query starts after (entries older than it, newest first): the one in
 * `query.cursor`, or `null` on the first page.
 * @throws InvalidInputError naming `cursor` when it is not one a status reader made.
 * @example recoveryPageAfter({ limit: 50 }); // null
 */
export function recoveryPageAfter(query: RecoveryPageQuery): { timestamp: number; entryId: number } | null {
  if (query.cursor === undefined) return null;
  const [timestamp, entryId] = decodeStatusCursor(query.cursor, ['number', 'number']);
  return { timestamp, entryId };
}

/**
 * The recovery views of entry rows, in their order.
 * @example recoveryViewsOf(rows).map((r) => r.action); // ['escalate', 'nudge']
 */
export function recoveryViewsOf(rows: readonly EntryRow[]): RecoveryView[] {
  return rows.map((row) => recoveryViewOf(entryOf(row)));
}
