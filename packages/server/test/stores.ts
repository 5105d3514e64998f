import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AsyncStateMachine,
  type ContextEntryInput,
  LoopDetector,
  ManualClock,
  SharedLoopDetector,
  type TaskInput,
} from '@loopguard/core';
import type { RunTally, StatusReader } from '@loopguard/core/internal';
import { openPostgresStorage, PgStatusReader } from '@loopguard/postgres';
import { ThrowawayCluster } from '@loopguard/postgres/testing';
import { type LoopGuardDatabase, openLoopGuardDatabase, SqliteStatusReader } from '@loopguard/sqlite';
import { afterAll, beforeAll } from 'vitest';

/** The storages the server is tested on. */
export const STORE_KINDS = ['sqlite', 'postgres'] as const;

/** One of {@link STORE_KINDS}. */
export type StoreKind = (typeof STORE_KINDS)[number];

/**
 * A store written by a detector on a manual clock, and the status reader over it: a SQLite file with
 * the synchronous `LoopDetector`, or a PostgreSQL schema of its own with `SharedLoopDetector`.
 */
export interface TestStore {
  kind: StoreKind;
  reader: StatusReader;
  clock: ManualClock;
  detector: LoopDetector | SharedLoopDetector;
  /** The SQLite database (`undefined` on PostgreSQL). */
  database: LoopGuardDatabase | undefined;
  /** The PostgreSQL cluster (throws on SQLite). */
  cluster(): ThrowawayCluster;
  upsertTask(input: TaskInput): Promise<void>;
  addContextEntry(input: ContextEntryInput): Promise<void>;
  /** Keeps a framework run's tally (the adapters' `recordRunTally`). */
  recordRunTally(tally: RunTally): Promise<void>;
  recordAttempt(
    taskId: string,
    status: string,
    blockers: string[],
    work: string[],
    session: string,
  ): Promise<void>;
  cleanup(): Promise<void>;
}

let schemas = 0;

/**
 * Starts one throwaway PostgreSQL cluster for the test file (when `kinds` has postgres) and returns
 * a factory of fresh stores. The cluster fails the file loudly when PostgreSQL cannot start.
 */
export function useStores(
  kinds: readonly StoreKind[] = STORE_KINDS,
): (kind: StoreKind) => Promise<TestStore> {
  let cluster: ThrowawayCluster | undefined;
  if (kinds.includes('postgres')) {
    beforeAll(async () => {
      cluster = await ThrowawayCluster.start();
    }, 120_000);
    afterAll(async () => {
      await cluster?.destroy();
    });
  }
  return async (kind) => {
    const clock = new ManualClock(Date.UTC(2025, 9, 18, 22, 0, 0));
    if (kind === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'loopguard-server-'));
      const database = openLoopGuardDatabase(join(dir, 'state.db'), { clock });
      const detector = new LoopDetector(database.stateMachine, {
        clock,
        attemptStore: database.attemptStore,
      });
      return {
        kind,
        reader: new SqliteStatusReader(database),
        clock,
        detector,
        database,
        cluster: () => {
          throw new Error('a SQLite store has no cluster');
        },
        upsertTask: async (input) => void database.stateMachine.upsertTask(input),
        addContextEntry: async (input) => void database.stateMachine.addContextEntry(input),
        recordRunTally: async (tally) => database.stateMachine.recordRunTally(tally),
        recordAttempt: async (...args) => void detector.recordAttempt(...args),
        cleanup: async () => {
          database.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    const running = cluster;
    if (running === undefined)
      throw new Error('the PostgreSQL cluster did not start (see the beforeAll error)');
    schemas += 1;
    const storage = await openPostgresStorage({
      connectionString: running.connectionString,
      schema: `server_${process.pid}_${schemas}`,
      clock,
    });
    const detector = new SharedLoopDetector(storage, { clock });
    const stateMachine: AsyncStateMachine = storage.stateMachine;
    return {
      kind,
      reader: new PgStatusReader(storage),
      clock,
      detector,
      database: undefined,
      cluster: () => running,
      upsertTask: async (input) => void (await stateMachine.upsertTask(input)),
      addContextEntry: async (input) => void (await stateMachine.addContextEntry(input)),
      recordRunTally: async (tally) => await stateMachine.recordRunTally?.(tally),
      recordAttempt: async (...args) => void (await detector.recordAttempt(...args)),
      cleanup: () => storage.close(),
    };
  };
}

/** Records `count` blocked attempts on the same blocker, then detects and recovers the loop. */
export async function causeBlockedSpin(store: TestStore, taskId: string, count = 3): Promise<void> {
  for (let i = 0; i < count; i++) {
    await store.recordAttempt(taskId, 'blocked', ['missing auth token'], [], `session_${i}`);
    store.clock.advance(1000);
  }
  await recover(store, taskId);
}

/** Records four attempts on a done task and recovers the completed-task revisit. */
export async function causeRevisit(store: TestStore, taskId: string): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await store.recordAttempt(taskId, 'done', [], [`check ${i}`], `session_${i}`);
    store.clock.advance(1000);
  }
  await recover(store, taskId);
}

async function recover(store: TestStore, taskId: string): Promise<void> {
  const loop = await store.detector.detectLoop(taskId);
  if (!loop.isLooping) throw new Error(`expected a loop on ${taskId}`);
  await store.detector.applyRecovery(loop);
}
