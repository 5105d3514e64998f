/**
 * `@loopguard/core/seeds`: the seed-shaped iteration safety guard functions (`checkMaxIterations`,
 * `checkCircuitBreaker`, `checkQualityRegression`, `checkThrashing`, `runSafetyChecks`,
 * `checkSafetyGuards`), their result types, the escalation report and the budget override.
 * @packageDocumentation
 */

export { checkCircuitBreaker } from '../guards/checkCircuitBreaker.js';
export { checkMaxIterations } from '../guards/checkMaxIterations.js';
export { checkQualityRegression } from '../guards/checkQualityRegression.js';
export {
  checkSafetyGuards,
  type SafetyGuardName,
  type SafetyGuardResult,
} from '../guards/checkSafetyGuards.js';
export { checkThrashing } from '../guards/checkThrashing.js';
export {
  type EscalationContext,
  type EscalationReportInput,
  escalationReportFor,
  formatEscalationReport,
} from '../guards/escalationReport.js';
export { type BudgetExtension, extendBudget } from '../guards/extendBudget.js';
export { runSafetyChecks } from '../guards/runSafetyChecks.js';
export { DEFAULT_CONFIG, type SafetyConfig } from '../guards/safetyConfig.js';
export type {
  CircuitBreakerResult,
  CombinedSafetyResult,
  QualityRegressionResult,
  SafetyBlocker,
  SafetyCheckResult,
  ThrashingResult,
} from '../guards/safetyResults.js';
export type {
  IterationConfig,
  IterationHistoryEntry,
  ValidationFlag,
  ValidationResult,
} from '../model/iterationRecord.js';
