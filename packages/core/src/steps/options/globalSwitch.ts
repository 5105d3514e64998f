let globallyEnabled = true;

/**
 * The global switch: `false` turns step-level loop detection off in every detector of the process
 * (each `observe` then returns `continue` and records nothing) until it is turned on again.
 * @example setStepLoopDetectionEnabled(false);
 */
export function setStepLoopDetectionEnabled(enabled: boolean): void {
  globallyEnabled = enabled;
}

/** Whether the global switch is on. @default true */
export function isStepLoopDetectionEnabled(): boolean {
  return globallyEnabled;
}
