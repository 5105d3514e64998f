export {
  actionOfTopic,
  type RecoveryPage,
  type RecoveryView,
  recoveryViewOf,
  type SessionCounts,
  type SessionPage,
  type SessionVerdict,
  type SessionView,
  type StatusReader,
  type TaskStatusPage,
  type TaskStatusRow,
} from '@loopguard/core/internal';
export { attachEmitter, type LiveEmitter } from './attachEmitter.js';
export { createStatusHandler, type StatusHandler, type StatusHandlerOptions } from './createStatusHandler.js';
export { type FollowReaderOptions, followReader, type StoreFollower } from './followReader.js';
export { HttpError } from './http/HttpError.js';
export { CONTENT_SECURITY_POLICY } from './http/responses.js';
export { type BreakerView, LiveFeed, type LiveFeedEvents } from './LiveFeed.js';
export { BREAKER_STATE_VALUES, createMetrics, type StatusMetrics } from './metrics.js';
export {
  DEFAULT_STATUS_SESSIONS,
  MAX_PAGE_LIMIT,
  parseRecoveriesQuery,
  parseSessionEntriesQuery,
  parseSessionsQuery,
  parseStatusQuery,
  parseTime,
  type RecoveriesQuery,
  type SessionEntriesQuery,
  type SessionsQuery,
  type StatusQuery,
} from './queryParams.js';
export { registerSessionMetrics } from './sessionMetrics.js';
export {
  DEFAULT_STATUS_PORT,
  isLoopback,
  type RunningStatusServer,
  type StartStatusServerOptions,
  startStatusServer,
} from './startStatusServer.js';
export { loadStaticAssets, type StaticAsset } from './staticAssets.js';
export {
  DEFAULT_ATTEMPT_WINDOW_MS,
  RUNNING_WINDOW_MS,
  type StatusSnapshot,
  type StatusSnapshotSources,
  statusSnapshot,
} from './statusSnapshot.js';
export { type StatusLoop, type StatusSources, startStatusSources } from './statusSources.js';
