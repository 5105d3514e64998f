/**
 * The schema version this build of `@loopguard/sqlite` writes: the last migration's version (a
 * test holds the two equal). A module of its own, so that the Claude Code status line tells a
 * database an earlier loopguard wrote without loading the migrations (story56).
 * @example
 * db.pragma('user_version', { simple: true }) === SCHEMA_VERSION; // after openLoopGuardDatabase(db)
 */
export const SCHEMA_VERSION = 16;
