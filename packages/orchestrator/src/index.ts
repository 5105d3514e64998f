export {
  BLOCKED_PROMISE,
  COMPLETE_PROMISE,
  type CompletionPromiseMatch,
  detectCompletionPromise,
} from './completionPromise.js';
export { validateDecision } from './decision.js';
export type { ExecutionResult, TickDetails } from './executionResult.js';
export { executorReportSchema, validateExecutorReport } from './executorReport.js';
export type { GuardStatistics, GuardStatisticsSource, IterationGuardTrigger } from './guardStatistics.js';
export { IterationSessions } from './IterationSessions.js';
export type {
  IterationSessionsEvents,
  IterationSessionView,
  IterationStartResult,
  NextIterationResult,
  RecordValidationResult,
} from './iterationSessionResults.js';
export type { IterationSessionsOptions } from './iterationSessionsOptions.js';
export { OrchestratorLoop } from './OrchestratorLoop.js';
export type { OrchestratorLoopEvents } from './orchestratorLoopEvents.js';
export { type OrchestratorLoopOptions, orchestratorLoopOptionsSchema } from './orchestratorLoopOptions.js';
export type { OrchestratorLoopStatus } from './orchestratorLoopStatus.js';
export type {
  ActionDecision,
  ActionHandler,
  Decision,
  Executor,
  ExecutorContext,
  ExecutorReport,
  IdleDecision,
  OrchestratorTask,
  Policy,
  QualityMonitor,
  QualityVerdict,
  RunTaskDecision,
  TaskScheduler,
} from './ports.js';
export { type RunExecutorOptions, runExecutor } from './runExecutor.js';
export {
  clampInterval,
  MAX_TICK_INTERVAL,
  MIN_TICK_INTERVAL,
  type StopReason,
  type TickOutcome,
  TickScheduler,
  type TickSchedulerOptions,
} from './tickScheduler.js';
export { MAX_TIMER_DELAY, ManualTimer, systemTimer, type Timer, type TimerHandle } from './timer.js';
