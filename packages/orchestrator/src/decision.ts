import { RunError } from '@loopguard/core';
import { describeValue } from '@loopguard/core/internal';
import type { Decision } from './ports.js';

/**
 * Checks what a policy's `decide` returned.
 * @throws RunError with code `run_error` describing the problem.
 * @example validateDecision({ type: 'run_task', task: { id: 'T1' } })
 */
export function validateDecision(value: unknown): Decision {
  const describe = (v: unknown): string => (v === undefined ? 'undefined' : describeValue(v));
  const fail = (problem: string): never => {
    throw new RunError('run_error', `Policy returned an invalid decision: ${problem}`);
  };
  if (value === null || typeof value !== 'object') return fail(`expected an object, got ${describe(value)}`);
  const decision = value as { type?: unknown; task?: { id?: unknown } | null; name?: unknown };
  switch (decision.type) {
    case 'run_task':
      if (decision.task === null || typeof decision.task !== 'object') {
        return fail(`"task" must be an object, got ${describe(decision.task)}`);
      }
      if (typeof decision.task.id !== 'string' || decision.task.id === '') {
        return fail(`"task.id" must be a non-empty string, got ${describe(decision.task.id)}`);
      }
      return value as Decision;
    case 'idle':
      return value as Decision;
    case 'action':
      if (typeof decision.name !== 'string' || decision.name === '') {
        return fail(`"name" must be a non-empty string, got ${describe(decision.name)}`);
      }
      return value as Decision;
    default:
      return fail(`"type" must be run_task, idle or action, got ${describe(decision.type)}`);
  }
}
