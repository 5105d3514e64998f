export {
  migratePostgres,
  PG_MIGRATIONS,
  PG_SCHEMA_VERSION,
  type PgMigration,
  type PgMigrationResult,
  VERSION_TABLE,
} from './migrations.js';
export { PgAttemptStore } from './PgAttemptStore.js';
export { PgStateMachine } from './PgStateMachine.js';
export { PgStatusReader } from './PgStatusReader.js';
export { openPostgresStorage, PostgresStorage } from './PostgresStorage.js';
export { isConnectionError, toStorageError } from './pgErrors.js';
export type { PostgresStorageOptions } from './postgresStorageOptions.js';
export { INITIAL_SCHEMA_SQL as PG_INITIAL_SCHEMA_SQL } from './schema/001_initial.js';
