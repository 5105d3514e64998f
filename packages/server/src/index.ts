export { attachEmitter, type LiveEmitter } from './attachEmitter.js';
export {
  CONTENT_SECURITY_POLICY,
  createStatusHandler,
  type StatusHandler,
  type StatusHandlerOptions,
  type StatusLoop,
} from './createStatusHandler.js';
export { decodeCursor, encodeCursor } from './cursor.js';
export {
  type BreakerTransitionRow,
  DatabaseReader,
  type DatabaseReaderOptions,
  type RecoveryPage,
  type TaskPage,
  type TaskRow,
} from './DatabaseReader.js';
export { type FollowDatabaseOptions, followDatabase } from './followDatabase.js';
export { HttpError } from './httpError.js';
export { type BreakerView, LiveFeed, type LiveFeedEvents } from './LiveFeed.js';
export { BREAKER_STATE_VALUES, createMetrics, type MetricsBaseline } from './metrics.js';
export {
  MAX_PAGE_LIMIT,
  parseRecoveriesQuery,
  parseStatusQuery,
  parseTime,
  type RecoveriesQuery,
  type StatusQuery,
} from './queryParams.js';
export { ACTION_OF_TOPIC, type RecoveryView, recoveryViewOf } from './recoveryEvent.js';
export {
  isLoopback,
  type RunningStatusServer,
  type StartStatusServerOptions,
  startStatusServer,
} from './startStatusServer.js';
export { loadStaticAssets, type StaticAsset } from './staticAssets.js';
export {
  RUNNING_WINDOW_MS,
  type StatusSnapshot,
  type StatusSnapshotSources,
  statusSnapshot,
} from './statusSnapshot.js';
