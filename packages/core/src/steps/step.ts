import { InvalidInputError } from '../kernel/errors.js';
import { describeValue } from '../kernel/validate.js';

/**
 * A tool call of the agent: a shell command, a file edit, a search.
 * @example { type: 'action', tool: 'bash', input: 'pytest tests/test_a.py' }
 */
export interface ActionStep {
  /** The step's kind: a tool call. */
  type: 'action';
  /** Name of the tool (`bash`, `Edit`, `Read`, ...). Non-empty. */
  tool: string;
  /** The tool's input: a command string or any JSON value (object keys are compared order-insensitively). */
  input: unknown;
}

/**
 * The result of a tool call.
 * @example { type: 'observation', tool: 'bash', output: 'FAILED tests/test_a.py::test_x', error: true }
 */
export interface ObservationStep {
  /** The step's kind: a tool call's result. */
  type: 'observation';
  /** Name of the tool that produced it, when known. */
  tool?: string;
  /** What the tool returned. */
  output: string;
  /** Whether the tool reported a failure (non-zero exit code, `is_error`). @default false */
  error?: boolean;
  /**
   * Whether the agent's CLI refused the call before it ran (Claude Code's `<tool_use_error>`: an
   * input it rejected, a command it blocks, a tool it does not have): nothing ran and no time
   * passed, so a waiting command (`sleep 60`, an exempt tool) is judged like any other call.
   * @default false
   */
  refused?: boolean;
}

/**
 * The agent's own text: reasoning or a reply.
 * @example { type: 'message', text: 'Let me run the tests again.' }
 */
export interface MessageStep {
  /** The step's kind: the model's text. */
  type: 'message';
  /** The text. */
  text: string;
}

/** One step of an agent run, as {@link StepLoopDetector.observe} takes it. */
export type Step = ActionStep | ObservationStep | MessageStep;

/** The step kinds: `action | observation | message`. */
export const STEP_TYPES = ['action', 'observation', 'message'] as const;

function fail(field: string, problem: string, value: unknown): never {
  throw new InvalidInputError(
    `${field === '' ? 'step' : `step.${field}`} ${problem}, got ${describeValue(value)}`,
  );
}

/** The fields a step may have, as read from it once. */
interface StepFields {
  type: unknown;
  tool: unknown;
  input: unknown;
  output: unknown;
  error: unknown;
  text: unknown;
  refused: unknown;
}

/** `step[name]`, a getter or Proxy trap that throws being a typed error naming the field. */
function readField(step: Record<string, unknown>, name: keyof StepFields): unknown {
  try {
    return step[name];
  } catch (error) {
    throw new InvalidInputError(`step.${name} cannot be read: ${(error as Error)?.message ?? String(error)}`);
  }
}

/**
 * The step's fields, each read once, in this order (a getter sees the same reads as before), into an
 * object of one shape: each read is a named property access, not a lookup by a key in a loop.
 */
function readFields(step: Record<string, unknown>): StepFields {
  return {
    type: readField(step, 'type'),
    tool: readField(step, 'tool'),
    input: readField(step, 'input'),
    output: readField(step, 'output'),
    error: readField(step, 'error'),
    text: readField(step, 'text'),
    refused: readField(step, 'refused'),
  };
}

/**
 * Checks one step and returns a copy holding only the fields of its type (extra fields such as a
 * corpus' `exitCode` are dropped).
 *
 * @throws InvalidInputError naming the offending field (`step.type`, `step.tool`, `step.output`, ...).
 * @example
 * validateStep({ type: 'message', text: 'hi', extra: 1 }); // { type: 'message', text: 'hi' }
 */
export function validateStep(step: unknown): Step {
  if (step === null || typeof step !== 'object' || Array.isArray(step)) fail('', 'must be an object', step);
  const record = readFields(step as Record<string, unknown>);
  switch (record.type) {
    case 'action':
      if (typeof record.tool !== 'string' || record.tool.length === 0) {
        fail('tool', 'must be a non-empty string', record.tool);
      }
      if (record.input === undefined)
        fail('input', 'must be present (a string or a JSON value)', record.input);
      return { type: 'action', tool: record.tool, input: record.input };
    case 'observation': {
      if (typeof record.output !== 'string') fail('output', 'must be a string', record.output);
      if (record.error !== undefined && typeof record.error !== 'boolean') {
        fail('error', 'must be a boolean when given', record.error);
      }
      if (record.tool !== undefined && typeof record.tool !== 'string') {
        fail('tool', 'must be a string when given', record.tool);
      }
      if (record.refused !== undefined && typeof record.refused !== 'boolean') {
        fail('refused', 'must be a boolean when given', record.refused);
      }
      const observation: ObservationStep = { type: 'observation', output: record.output };
      if (record.tool !== undefined) observation.tool = record.tool as string;
      if (record.error === true) observation.error = true;
      if (record.refused === true) observation.refused = true;
      return observation;
    }
    case 'message':
      if (typeof record.text !== 'string') fail('text', 'must be a string', record.text);
      return { type: 'message', text: record.text };
    default:
      return fail('type', `must be one of ${STEP_TYPES.join(', ')}`, record.type);
  }
}
