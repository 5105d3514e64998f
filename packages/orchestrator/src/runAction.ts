import { LoopGuardError, RunError } from '@loopguard/core';
import type { ActionDecision, ActionHandler } from './ports.js';

/**
 * Runs an `action` decision through the loop's action handler.
 * @throws RunError when no handler is configured, or wrapping what the handler threw (a
 * `LoopGuardError` is rethrown as is).
 */
export async function runAction(
  actionHandler: ActionHandler | undefined,
  decision: ActionDecision,
  signal: AbortSignal,
): Promise<void> {
  if (!actionHandler) {
    throw new RunError(
      'run_error',
      `No actionHandler configured for action ${JSON.stringify(decision.name)}`,
    );
  }
  try {
    await actionHandler(decision, { signal });
  } catch (error) {
    if (error instanceof LoopGuardError) throw error;
    throw new RunError('run_error', `Action ${JSON.stringify(decision.name)} failed: ${String(error)}`, {
      cause: error,
    });
  }
}
