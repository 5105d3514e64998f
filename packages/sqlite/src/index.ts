// --- the agent CLI's process, and sessions read as ended once it is gone ---
export { type AgentProcess, agentProcessGone, hookAgentProcess } from './agentProcess.js';
// --- asynchronous twin of the database ---
export { asyncSqliteStorage } from './asyncSqliteStorage.js';
export { type BusyRetryPolicy, DEFAULT_BUSY_RETRY } from './busyRetry.js';
export { foreignSchemaObjects } from './foreignSchema.js';
export { readLiveSessions } from './liveSessions.js';
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
// --- guarded runs of `loopguard run` ---
export {
  acquireRunLock,
  lastRunLockOwner,
  liveRunOwner,
  type RunLock,
  type RunLockOwner,
  runLockFile,
} from './runLock.js';
export { SqliteAttemptStore, type SqliteAttemptStoreOptions } from './SqliteAttemptStore.js';
export {
  type HookAgent,
  type HookSessionKey,
  type HookSessionRecord,
  type HookSessionSummary,
  type HookSessionUpdate,
  SqliteHookSessionStore,
  type SqliteHookSessionStoreOptions,
} from './SqliteHookSessionStore.js';
export { SqliteIterationStore, type SqliteIterationStoreOptions } from './SqliteIterationStore.js';
export {
  OWNER_GONE_REASON,
  type RunIterationRecord,
  type RunRecord,
  type RunStatus,
  SqliteRunStore,
  type SqliteRunStoreOptions,
} from './SqliteRunStore.js';
export { type SpendRow, SqliteSpendStore, type SqliteSpendStoreOptions } from './SqliteSpendStore.js';
export { SqliteStateMachine, type SqliteStateMachineOptions } from './SqliteStateMachine.js';
export { SqliteStatusReader } from './SqliteStatusReader.js';
