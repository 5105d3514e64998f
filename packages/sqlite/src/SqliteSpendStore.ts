import { type Clock, systemClock } from '@loopguard/core';
import { assertNonEmptyString } from '@loopguard/core/internal';
import type BetterSqlite3 from 'better-sqlite3';
import { type BusyRetryPolicy, DEFAULT_BUSY_RETRY, runStorageOp } from './busyRetry.js';
import { immediateTransaction } from './immediateTransaction.js';

/** One scope's row of `spend_ledgers`. */
export interface SpendRow {
  /** The `SpendLedger` snapshot, parsed from JSON (the caller validates it: `SpendLedger` does). */
  ledger: unknown;
  /** How far the scope's source (a session's transcript) has been read, bytes. */
  offset: number;
  /** The budget in force for the scope when it was written (`cap_usd`, `cap_tokens`); absent: none. */
  caps?: { maxCostUsd?: number | undefined; maxTokens?: number | undefined } | undefined;
}

/** Options of {@link SqliteSpendStore}. */
export interface SqliteSpendStoreOptions {
  /** An open connection whose schema is version 8 or later (`openLoopGuardDatabase` migrates it). */
  db: BetterSqlite3.Database;
  /** Source of `updated_at`. @default systemClock */
  clock?: Clock;
  /** What to do when `SQLITE_BUSY` escapes the busy timeout. @default { retries: 5, initialDelayMs: 25 } */
  busyRetry?: BusyRetryPolicy;
}

/**
 * What the spend guard's scopes have spent between hook calls (`spend_ledgers`, one row per scope
 * key). {@link update} reads the rows and writes their new state in one `BEGIN IMMEDIATE`
 * transaction, so that hook calls running at once count each reply once.
 * @example
 * store.update(['session:claude:s1'], (rows) => ({ next: new Map([['session:claude:s1', { ledger: {}, offset: 10 }]]), result: undefined }));
 */
export class SqliteSpendStore {
  private readonly db: BetterSqlite3.Database;
  private readonly clock: Clock;
  private readonly busyRetry: Readonly<BusyRetryPolicy>;
  private readonly selectStmt: BetterSqlite3.Statement;
  private readonly upsertStmt: BetterSqlite3.Statement;

  /** @param options - see {@link SqliteSpendStoreOptions}. */
  constructor(options: SqliteSpendStoreOptions) {
    this.db = options.db;
    this.clock = options.clock ?? systemClock;
    this.busyRetry = options.busyRetry ?? DEFAULT_BUSY_RETRY;
    this.selectStmt = this.db.prepare('SELECT ledger, offset FROM spend_ledgers WHERE scope = ?');
    this.upsertStmt = this.db.prepare(
      `INSERT INTO spend_ledgers (scope, ledger, offset, cap_usd, cap_tokens, updated_at)
       VALUES (@scope, @ledger, @offset, @capUsd, @capTokens, @now)
       ON CONFLICT (scope) DO UPDATE SET ledger = excluded.ledger, offset = excluded.offset,
         cap_usd = excluded.cap_usd, cap_tokens = excluded.cap_tokens, updated_at = excluded.updated_at`,
    );
  }

  /**
   * How far `scope`'s source has been read (its row's `offset`), without a transaction: a hint for
   * what to look at before {@link update} reads it again. `0` when the scope has no row.
   */
  offsetOf(scope: string): number {
    assertNonEmptyString(scope, 'scope');
    const row = runStorageOp(this.db, this.busyRetry, 'SqliteSpendStore.offsetOf', () =>
      this.selectStmt.get(scope),
    ) as { offset: number } | undefined;
    return row?.offset ?? 0;
  }

  /**
   * The scopes whose key starts with `prefix` (a session's subagents: `subagent:codex:<session>:`),
   * with how far each was read, the most recently updated first, at most `limit`; without a
   * transaction, as {@link offsetOf}: a hint of which sources to read.
   */
  scopesUnder(prefix: string, limit: number): Array<{ scope: string; offset: number }> {
    assertNonEmptyString(prefix, 'prefix');
    // the key's range: every key that starts with the prefix sorts between it and the prefix with one
    // more code point past any (the primary key's index answers it)
    const rows = runStorageOp(this.db, this.busyRetry, 'SqliteSpendStore.scopesUnder', () =>
      this.db
        .prepare(
          `SELECT scope, offset FROM spend_ledgers WHERE scope >= ? AND scope < ?
           ORDER BY updated_at DESC, scope LIMIT ?`,
        )
        .all(prefix, `${prefix}\u{10FFFF}`, limit),
    ) as Array<{ scope: string; offset: number }>;
    return rows.filter((row) => row.scope.startsWith(prefix));
  }

  /**
   * Reads the rows of `scopes` (absent or unreadable rows are missing from the map), hands them to
   * `change`, and writes the rows it returns, in one `BEGIN IMMEDIATE` transaction ({@link immediateTransaction}). Writes `change`
   * makes on the same connection (context entries) commit or roll back with it.
   * @throws whatever `change` throws (nothing is written then); StorageError when SQLite fails.
   */
  update<T>(
    scopes: readonly string[],
    change: (rows: ReadonlyMap<string, SpendRow>) => { next: ReadonlyMap<string, SpendRow>; result: T },
  ): T {
    for (const [i, scope] of scopes.entries()) assertNonEmptyString(scope, `scopes[${i}]`);
    return runStorageOp(this.db, this.busyRetry, 'SqliteSpendStore.update', () =>
      immediateTransaction(this.db, () => {
        const rows = new Map<string, SpendRow>();
        for (const scope of scopes) {
          const row = this.selectStmt.get(scope) as { ledger: string; offset: number } | undefined;
          if (row !== undefined) rows.set(scope, { ledger: parseJson(row.ledger), offset: row.offset });
        }
        const { next, result } = change(rows);
        for (const [scope, row] of next) {
          this.upsertStmt.run({
            scope,
            ledger: JSON.stringify(row.ledger),
            offset: Math.max(0, Math.floor(row.offset)),
            capUsd: row.caps?.maxCostUsd ?? null,
            capTokens: row.caps?.maxTokens ?? null,
            now: this.clock.now(),
          });
        }
        return result;
      }),
    );
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
