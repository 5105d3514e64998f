import { describe, expect, it } from 'vitest';
import * as core from '../src/index.js';
import * as internal from '../src/internal.js';

describe('public API', () => {
  it('the main entry exports only what an embedder uses', () => {
    expect(Object.keys(core).sort()).toEqual(
      [
        'CONTEXT_ENTRY_TYPES',
        'ConfigurationError',
        'DEFAULT_CONFIG',
        'DEFAULT_ITERATION_CONTROL',
        'GuardMonitor',
        'GuardSet',
        'InMemoryAttemptStore',
        'InMemoryIterationStore',
        'InMemoryStateMachine',
        'InMemoryStorage',
        'InvalidInputError',
        'LOOP_DETECTOR_PRESETS',
        'LoopDetector',
        'LoopGuardError',
        'ManualClock',
        'RECOVERY_TOPICS',
        'RunError',
        'StagnationBreaker',
        'StorageError',
        'TASK_STATUSES',
        'checkCircuitBreaker',
        'checkMaxIterations',
        'checkQualityRegression',
        'checkSafetyGuards',
        'checkThrashing',
        'decide',
        'errorSignature',
        'escalationReportFor',
        'extendBudget',
        'formatDecisionYaml',
        'formatEscalationReport',
        'isTaskStatus',
        'parseIterationCheck',
        'parseIterationCheckYaml',
        'parseIterationControlYaml',
        'runSafetyChecks',
        'storageOf',
        'synthesizeFeedback',
        'systemClock',
        // asynchronous storage and the shared detector
        'SharedLoopDetector',
        'asyncInMemoryStorage',
        // step-level loop detection
        'ClaudeStreamJsonParser',
        'DEFAULT_EXEMPT_COMMANDS',
        'DEFAULT_EXEMPT_TOOLS',
        'JsonlStepParser',
        'STEP_LOOP_TOPICS',
        'STEP_SNAPSHOT_FORMAT',
        'STEP_SNAPSHOT_VERSION',
        'StepLoopDetector',
        'isStepLoopDetectionEnabled',
        'setStepLoopDetectionEnabled',
        // storable metadata and size limits
        'MAX_METADATA_DEPTH',
        'SIZE_LIMITS',
      ].sort(),
    );
  });

  it('the internal entry shares nothing with the main one, so every name has one home', () => {
    const shared = Object.keys(internal).filter((name) => name in core);
    expect(shared).toEqual([]);
  });
});
