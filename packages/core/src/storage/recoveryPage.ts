import { recoveryViewOf } from './recoveryView.js';
import { type EntryRow, entryOf } from './rows.js';
import { encodeStatusCursor } from './statusCursor.js';
import type { RecoveryPage } from './statusReader.js';

/**
 * A {@link RecoveryPage} from the rows of a recovery query that asked for `limit + 1` rows, newest
 * first: the first `limit` as recovery views, and a cursor after the last of them when there are more.
 */
export function recoveryPageOf(rows: readonly EntryRow[], limit: number): RecoveryPage {
  const recoveries = rows.slice(0, limit).map((row) => recoveryViewOf(entryOf(row)));
  const last = recoveries.at(-1);
  return {
    recoveries,
    nextCursor: rows.length > limit && last ? encodeStatusCursor([last.timestamp, Number(last.id)]) : null,
  };
}
