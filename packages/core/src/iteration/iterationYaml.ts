import { Document, isScalar, parse, visit } from 'yaml';
import { ConfigurationError, InvalidInputError } from '../kernel/errors.js';
import type { IterationDecision } from './decide.js';
import { type IterationCheck, parseIterationCheck } from './iterationCheck.js';
import {
  type ResolvedIterationControlOptions,
  resolveIterationControlOptions,
} from './iterationControlOptions.js';

/**
 * Reads seed 004's YAML input (`iteration_check: { task_id, current_iteration, ... }`).
 * @throws InvalidInputError when the text is not YAML, has no `iteration_check`, or a field is invalid.
 * @example parseIterationCheckYaml('iteration_check:\n  task_id: "task-003"\n  current_iteration: 2\n  ...')
 */
export function parseIterationCheckYaml(text: string): IterationCheck {
  const root = parseYaml(text, 'iteration_check YAML', InvalidInputError);
  if (!isRecord(root) || !('iteration_check' in root)) {
    throw new InvalidInputError(
      'iteration_check YAML must have an "iteration_check" mapping at the top level',
    );
  }
  return parseIterationCheck(root.iteration_check);
}

/**
 * Reads seed 004's YAML configuration (`iteration_control: { max_iterations, ... }`), defaults applied.
 * @throws ConfigurationError when the text is not YAML, has no `iteration_control`, or an option is invalid.
 */
export function parseIterationControlYaml(text: string): ResolvedIterationControlOptions {
  const root = parseYaml(text, 'iteration_control YAML', ConfigurationError);
  if (!isRecord(root) || !('iteration_control' in root)) {
    throw new ConfigurationError(
      'iteration_control YAML must have an "iteration_control" mapping at the top level',
    );
  }
  return resolveIterationControlOptions((root.iteration_control ?? {}) as never);
}

/**
 * Writes a decision in seed 004's YAML output format: a `decision:` mapping with the seed's keys
 * in the seed's order, strings double-quoted and multi-line strings as `|` blocks.
 * @example formatDecisionYaml({ action: 'proceed', task_id: 'task-003', message: 'Validation passed. Proceeding to next task.' });
 * // 'decision:\n  action: "proceed"\n  task_id: "task-003"\n  message: "Validation passed. Proceeding to next task."\n'
 */
export function formatDecisionYaml(decision: IterationDecision): string {
  const document = new Document({ decision: ordered(decision) });
  visit(document, {
    Scalar(key, node) {
      if (key === 'key' || typeof node.value !== 'string') return;
      node.type = node.value.includes('\n') ? 'BLOCK_LITERAL' : 'QUOTE_DOUBLE';
    },
  });
  return document.toString({ lineWidth: 0 });
}

/** The decision's fields in the seed's order. */
function ordered(decision: IterationDecision): Record<string, unknown> {
  switch (decision.action) {
    case 'proceed':
      return { action: decision.action, task_id: decision.task_id, message: decision.message };
    case 'retry':
      return {
        action: decision.action,
        task_id: decision.task_id,
        iteration: decision.iteration,
        feedback: {
          summary: decision.feedback.summary,
          actionable_items: decision.feedback.actionable_items,
          priority: decision.feedback.priority,
        },
      };
    case 'escalate':
      return {
        action: decision.action,
        task_id: decision.task_id,
        iteration: decision.iteration,
        context: {
          attempts_summary: decision.context.attempts_summary,
          pattern_detected: decision.context.pattern_detected,
          ...(decision.context.diff === undefined ? {} : { diff: decision.context.diff }),
        },
        question: decision.question,
      };
  }
}

function parseYaml(
  text: string,
  what: string,
  ErrorClass: new (message: string, options?: { cause?: unknown }) => Error,
): unknown {
  if (typeof text !== 'string') throw new InvalidInputError(`${what} must be a string, got ${typeof text}`);
  try {
    // logLevel 'error': core writes nothing to stderr; yaml's warnings (unknown tags) would go there
    return parse(text, { logLevel: 'error' });
  } catch (error) {
    throw new ErrorClass(`${what} is not valid YAML: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !isScalar(value);
}
