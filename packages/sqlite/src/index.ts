export { type BusyRetryPolicy, DEFAULT_BUSY_RETRY } from './busyRetry.js';
export {
  assertSchemaCurrent,
  MIGRATIONS,
  type MigrateOptions,
  type Migration,
  type MigrationResult,
  migrate,
  SCHEMA_VERSION,
} from './migrations.js';
export {
  type LoopGuardDatabase,
  type OpenLoopGuardDatabaseOptions,
  openLoopGuardDatabase,
} from './openLoopGuardDatabase.js';
export { SqliteAttemptStore, type SqliteAttemptStoreOptions } from './SqliteAttemptStore.js';
export { SqliteIterationStore, type SqliteIterationStoreOptions } from './SqliteIterationStore.js';
export { SqliteStateMachine, type SqliteStateMachineOptions } from './SqliteStateMachine.js';
